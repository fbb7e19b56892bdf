// SPDX-License-Identifier: Apache-2.0
// The irq-storm scenario's set-up: the disk's completion IRQ steered to the target CPU when the
// kernel allows (and always restored), a file for O_DIRECT writes, and a check of where the IRQ
// really lands.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace nw::inject {

// Steers IRQ `irq` (an action name of /proc/interrupts) to `cpu` when the kernel allows, opens an
// unlinked O_DIRECT file in `dir`, and counts where the IRQ lands during 100 ms of the storm's
// own I/O from `io_cpu`. Records all of it in `setup` and says it on stderr. Returns the file.
int prepare_irq_storm(const std::string& irq, int cpu, int io_cpu, const std::string& dir, nlohmann::json& setup);

// Puts back the affinity prepare_irq_storm changed, if it changed one. Idempotent.
void restore_irq_affinity();

}  // namespace nw::inject
