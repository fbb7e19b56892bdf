// SPDX-License-Identifier: Apache-2.0
// /proc/interrupts: which device IRQs and per-CPU vectors fire on which CPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nw::sys {

struct InterruptLine {
  std::string id;                 // "36" for device IRQs, "LOC", "RES", ... for vectors
  bool device = false;            // numbered line: a device IRQ with an smp_affinity
  int irq = -1;                   // the number when device
  std::vector<uint64_t> per_cpu;  // counts, indexed by the column's CPU number
  std::string chip, hwirq, name;  // e.g. "PCI-MSIX-0000:00:02.0", "1-edge", "virtio1-req.0"
  std::string description;        // vectors: "Local timer interrupts"
};

struct Interrupts {
  std::vector<int> cpus;  // CPU numbers of the columns (offline CPUs have none)
  std::vector<InterruptLine> lines;
  uint64_t count(const InterruptLine& l, int cpu) const;
  const InterruptLine* find_irq(int irq) const;
};

Interrupts parse_interrupts(const std::string& text);
// Reads <root>/proc/interrupts ("" = the live machine); empty result when unreadable.
Interrupts read_interrupts(const std::string& root = "");

// Name for an IRQ number as a noise source: the action name(s) of its /proc/interrupts line
// (e.g. "virtio1-req.0"), falling back to "irq<N>".
std::string irq_name(const Interrupts& table, int irq);

}  // namespace nw::sys
