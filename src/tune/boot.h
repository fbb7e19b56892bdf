// SPDX-License-Identifier: Apache-2.0
// Whether a boot-parameter knob is already in effect: its parameter on /proc/cmdline covers the
// benchmark CPUs (isolcpus, nohz_full, rcu_nocbs) or keeps off them (irqaffinity, kthread_cpus).
#pragma once
#include <optional>

#include "knobs/knob.h"
#include "system/kernel_cmdline.h"

namespace nw::tune {

bool boot_param_in_effect(const knobs::Knob& k, const sys::KernelCmdline& cmdline, const knobs::Targets& t);

}  // namespace nw::tune
