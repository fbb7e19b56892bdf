// SPDX-License-Identifier: Apache-2.0
#include "probes/source_names.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sources/kernel_names.h"
#include "sources/vocabulary.h"
#include "system/cgroup.h"

namespace nw::probes {

std::string key_comm(const nw_noise_key& key) { return std::string(key.comm, strnlen(key.comm, sizeof(key.comm))); }

// The key a fixed per-CPU slot (enum nw_fixed_slot) stands for.
nw_noise_key fixed_slot_key(uint32_t slot) {
  nw_noise_key k{};
  if (slot == NW_FIXED_BLOCK) {
    k.kind = NW_KIND_BLOCK;
  } else if (slot == NW_FIXED_WAKEUP_IDLE) {
    k.kind = NW_KIND_WAKEUP_IDLE;
  } else if (slot < NW_FIXED_SOFTIRQ) {
    k.kind = NW_KIND_VECTOR;
    k.id = slot - NW_FIXED_VECTOR;
  } else if (slot == NW_FIXED_FAULT) {
    k.kind = NW_KIND_FAULT;
  } else if (slot == NW_FIXED_STEAL) {
    k.kind = NW_KIND_STEAL;
  } else if (slot >= NW_FIXED_IRQ) {
    k.kind = NW_KIND_IRQ;
    k.id = slot - NW_FIXED_IRQ;
  } else {
    k.kind = NW_KIND_SOFTIRQ;
    k.id = slot - NW_FIXED_SOFTIRQ;
  }
  return k;
}

std::string EventNamer::nmi_name(const nw_noise_key& key) {
  uint64_t addr = 0;
  std::memcpy(&addr, key.comm, sizeof(addr));
  if (!addr) return "nmi";
  if (!kallsyms_loaded_) {
    kallsyms_loaded_ = true;
    std::ifstream f("/proc/kallsyms");
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream ls(line);
      std::string a, type, name;
      if (!(ls >> a >> type >> name)) continue;
      if (type != "t" && type != "T") continue;
      if (name.find("nmi") == std::string::npos && name.find("handler") == std::string::npos) continue;
      kallsyms_[std::stoull(a, nullptr, 16)] = name;
    }
  }
  auto it = kallsyms_.find(addr);
  return it == kallsyms_.end() ? "nmi" : it->second;
}

std::string EventNamer::irq_name(uint32_t irq) {
  if (!irqs_.find_irq(int(irq))) irqs_ = sys::read_interrupts();
  return sys::irq_name(irqs_, int(irq));
}

std::string EventNamer::irq_source(uint32_t irq) { return sources::format(sources::kIrq, irq_name(irq)); }

// The throttled group by its path in the cpu hierarchy, found from the kernel's id for it (the
// group's inode on the cgroup fs). A group that cannot be found any more keeps its id.
std::string EventNamer::throttle_source(uint32_t cgroup_id) {
  auto it = cgroups_.find(cgroup_id);
  if (it != cgroups_.end()) return it->second;
  std::string name = fmt::format("cgroup-{}", cgroup_id);
  if (auto own = sys::cpu_cgroup_of(sys::Sysroot{}))
    if (auto path = sys::cgroup_path_of_id(*own, cgroup_id)) name = *path;
  return cgroups_[cgroup_id] = sources::format(sources::kThrottle, name);
}

NoiseEvent EventNamer::name(const nw_noise_key& key) {
  NoiseEvent e;
  switch (key.kind) {
    case NW_KIND_PREEMPT:
      // A device's handler thread (PREEMPT_RT, threadirqs) is that device's interrupt.
      if (auto irq = sources::irq_thread_irq(key_comm(key))) {
        e.source = irq_source(uint32_t(*irq));
        e.detail = SourceDetail{.pid = int64_t(key.id), .irq = *irq, .irq_thread_event = true}.to_json();
        break;
      }
      e.source = sources::format(sources::kPreemption, key_comm(key));
      e.detail = SourceDetail{.pid = int64_t(key.id)}.to_json();
      break;
    case NW_KIND_CONTENTION:  // keyed by the task's name alone (noise.bpf.c): no pid
      e.source = sources::format(sources::kContention, key_comm(key));
      if (key.id) e.detail = SourceDetail{.pid = int64_t(key.id)}.to_json();
      break;
    case NW_KIND_IRQ:
      e.source = irq_source(key.id);
      e.detail = SourceDetail{.irq = int(key.id)}.to_json();
      break;
    case NW_KIND_VECTOR:
      e.source = sources::format(sources::kIrq, sources::vector_name(key.id));
      break;
    case NW_KIND_SOFTIRQ:
      e.source = sources::format(sources::kSoftirq, sources::softirq_name(key.id));
      break;
    case NW_KIND_NMI:
      e.source = sources::format(sources::kNmi, nmi_name(key));
      break;
    case NW_KIND_SMT:
      e.source = sources::format(sources::kSmt, key_comm(key));
      e.detail = SourceDetail{.pid = int64_t(key.id)}.to_json();
      break;
    case NW_KIND_BLOCK:
      e.source = sources::kBlocking;
      break;
    case NW_KIND_BLOCK_SLEEP:
      e.source = sources::format(sources::kBlocking, sources::kBlockingSleep);
      break;
    case NW_KIND_BLOCK_IO:
      if (key.id & NW_BLOCK_IO_SOFTIRQ) {
        e.source = sources::blocking_io(sources::softirq_name(key.id & ~NW_BLOCK_IO_SOFTIRQ));
      } else {
        e.source = sources::blocking_io(irq_name(key.id));
        e.detail = SourceDetail{.irq = int(key.id)}.to_json();
      }
      break;
    case NW_KIND_BLOCK_WAIT:
      // Woken by a device's handler thread (PREEMPT_RT, threadirqs): the wait was for that device,
      // as when its hard handler wakes the task on other kernels.
      if (auto irq = sources::irq_thread_irq(key_comm(key))) {
        e.source = sources::blocking_io(irq_name(uint32_t(*irq)));
        e.detail = SourceDetail{.irq = *irq}.to_json();
        break;
      }
      e.source = sources::blocking_wait(key_comm(key));
      e.detail = SourceDetail{.pid = int64_t(key.id)}.to_json();
      break;
    case NW_KIND_BLOCK_OTHER:
      e.source = sources::format(sources::kBlocking, sources::kBlockingOther);
      break;
    case NW_KIND_SLEEP_LATE:  // named like the sleeps it belongs to, not a part of their time
      e.source = sources::format(sources::kBlocking, sources::kBlockingSleep);
      e.detail = SourceDetail{.timer_late_event = true}.to_json();
      break;
    case NW_KIND_MIGRATE:
      e.source = sources::kMigration;
      e.detail = SourceDetail{.from = int(key.id >> 16), .to = int(key.id & 0xffff)}.to_json();
      break;
    case NW_KIND_WAKEUP_IDLE:
      e.source = sources::format(sources::kWakeup, "idle");
      break;
    case NW_KIND_FAULT:
      e.source = sources::kFault;
      break;
    case NW_KIND_STEAL:
      e.source = sources::kSteal;
      break;
    case NW_KIND_THROTTLE:
      e.source = throttle_source(key.id);
      e.detail = SourceDetail{.cgroup_id = int64_t(key.id)}.to_json();
      break;
    default:
      e.source = fmt::format("unknown:{}", key.kind);
  }
  return e;
}

}  // namespace nw::probes
