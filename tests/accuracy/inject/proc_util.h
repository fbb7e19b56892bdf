// SPDX-License-Identifier: Apache-2.0
// What the injector reads from /proc about the benchmark and its own helpers: the kernel's own
// counts, used as ground truth.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "system/interrupts.h"

namespace nw::inject {

[[noreturn]] void die(const std::string& msg);  // one line on stderr, exit 125

uint64_t now_ns();  // CLOCK_MONOTONIC
bool pin_self(int cpu);

// First field of /proc/PID/schedstat: CPU time the task has run, ns (exact, from the scheduler).
uint64_t schedstat_runtime(pid_t pid);
// se.nr_migrations of /proc/PID/sched: the scheduler's own count of the task's CPU changes.
std::optional<uint64_t> nr_migrations(pid_t pid);
// Which CPU the task last ran on (field 39 of /proc/PID/stat); -1 when unknown.
int last_cpu(pid_t pid);
// The task's parent (PPid of /proc/PID/status); -1 when unknown.
pid_t parent_of(pid_t pid);
// The task's comm; "" when it is gone.
std::string comm_of(pid_t pid);
// The comms of every thread of process `pid` (/proc/PID/task/*/comm).
std::vector<std::string> thread_comms(pid_t pid);

// A device IRQ of /proc/interrupts by its action name (e.g. "virtio1-req.0").
const sys::InterruptLine* find_irq(const sys::Interrupts& table, const std::string& name);
// How many times that IRQ fired on `cpu` so far (0 when it does not exist).
uint64_t irq_count_on(const std::string& name, int cpu);

}  // namespace nw::inject
