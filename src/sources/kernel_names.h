// SPDX-License-Identifier: Apache-2.0
// The kernel's own names that become source names: softirq vectors (`softirq:TIMER`) and the x86
// APIC vectors the probe traces (`irq:local_timer`), indexed as bpf/noise.h numbers them; and the
// names the kernel gives its own threads (`preemption:kworker/1:2`).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace nw::sources {

// Softirq vector number -> "HI", "TIMER", ... "RCU", as the kernel's softirq_to_name; "UNKNOWN" beyond.
std::string_view softirq_name(uint32_t vec);
std::span<const std::string_view> softirq_names();
// enum nw_vector -> "local_timer", "reschedule", ...; "vector" beyond.
std::string_view vector_name(uint32_t id);
// All of those names, in enum nw_vector's order: the one list of them in user space. Each is a
// CPU's own interrupt, which no IRQ affinity setting moves, unlike a device IRQ.
std::span<const std::string_view> apic_vector_names();
// The vectors of hardware events among them, thermal to spurious (thermal, machine-check
// threshold, deferred and APIC errors): a hardware matter, which no setting removes.
std::span<const std::string_view> hardware_event_vector_names();

// The vector an irq_vectors tracepoint (without _entry/_exit: "thermal_apic") times.
std::optional<uint32_t> vector_of_tracepoint(std::string_view tracepoint);
// The /proc/interrupts line that counts a vector ("LOC", "TRM", ...; "" for reboot, which has none).
std::string_view vector_interrupts_label(uint32_t id);
// The tick, the scheduler's and function-call IPIs and irq_work: they fire all the time.
bool vector_is_frequent(uint32_t id);

// How the names of the kernel's own threads begin ("kworker/", "ksoftirqd/", "kswapd", ...). A
// prefix with a '/' names per-CPU threads (the CPU follows it), one without names unbound ones.
// Knobs that can only reach user processes (stop one, outrank it) leave these out.
std::span<const std::string_view> kernel_thread_prefixes();

// The IRQ whose handler thread this is: "irq/26-virtio0-" (a comm, 15 characters at most) -> 26.
// Under PREEMPT_RT (or threadirqs) a device's handler runs in such a thread, so the time it takes
// from a benchmark is that device's interrupt, not some task's.
std::optional<int> irq_thread_irq(std::string_view comm);

}  // namespace nw::sources
