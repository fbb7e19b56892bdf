// SPDX-License-Identifier: Apache-2.0
// The rare APIC vectors (thermal events, machine-check thresholds, APIC errors, spurious
// interrupts, platform IPIs, reboot) on a machine that has never seen them: /proc/interrupts counts
// each since boot, and one that never fired (or that the kernel does not even list) is not worth
// two programs to verify at every start, two tracepoints to patch in and out, and their dispatch.
// Their programs are left unloaded, and after the run the same counts say whether one fired after
// all, so that its time is never silently unexplained.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "system/interrupts.h"

namespace nw::probes {

// The vectors (enum nw_vector) not to trace: rare ones whose /proc/interrupts line is absent or
// reads 0 on every CPU. Never the frequent ones (sources::vector_is_frequent), and nothing when
// /proc/interrupts could not be read.
std::vector<uint32_t> never_fired_vectors(const sys::Interrupts& at_start);

// One warning per untraced vector that fired between the two readings on `cpus` (every CPU when
// empty): "irq:thermal fired 3 times on CPU 1 during the session without being traced: ...".
std::vector<std::string> untraced_vectors_fired(const std::vector<uint32_t>& untraced, const sys::Interrupts& before,
                                                const sys::Interrupts& after, const std::vector<int>& cpus);

}  // namespace nw::probes
