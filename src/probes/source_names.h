// SPDX-License-Identifier: Apache-2.0
// Names for what the kernel side records: the source of a noise key ("preemption:kworker/1:2",
// "irq:virtio1-req.0", ...) in the vocabulary of src/sources/, and the key each fixed per-CPU slot
// stands for.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "noise.h"
#include "probes/noise_probe.h"
#include "record/source_detail.h"
#include "system/interrupts.h"

namespace nw::probes {

// The comm bytes of a key, up to the first NUL.
std::string key_comm(const nw_noise_key& key);

// The key a fixed per-CPU slot (enum nw_fixed_slot) stands for.
nw_noise_key fixed_slot_key(uint32_t slot);

// Names keys; remembers /proc/interrupts (re-read when an IRQ number is new) and the NMI
// handlers' symbols (read from /proc/kallsyms on the first NMI).
class EventNamer {
 public:
  // The table as read a moment ago by someone else (the probe's set-up reads it once).
  void use_interrupts(sys::Interrupts table) { irqs_ = std::move(table); }
  NoiseEvent name(const nw_noise_key& key);

 private:
  std::string nmi_name(const nw_noise_key& key);
  std::string irq_name(uint32_t irq);
  std::string irq_source(uint32_t irq);
  std::string throttle_source(uint32_t cgroup_id);

  sys::Interrupts irqs_;
  std::map<uint64_t, std::string> kallsyms_;
  bool kallsyms_loaded_ = false;
  std::map<uint32_t, std::string> cgroups_;  // throttled group id -> its path
};

}  // namespace nw::probes
