// SPDX-License-Identifier: Apache-2.0
// Attribution of measured gaps to OS events with the eBPF noise probe (src/probes/noise_probe.h):
// the probe charges everything that takes time from the spinning threads, per CPU and source.
#pragma once
#include <memory>
#include <string>

#include "check/cpu_noise.h"

namespace nw::check {

// The probe-backed attributor, or nullptr with the reason in `why` when the probe is not built
// into this version or cannot load (no root, no BTF). The probe itself loads in start().
std::unique_ptr<NoiseAttributor> make_probe_attributor(std::string* why);

}  // namespace nw::check
