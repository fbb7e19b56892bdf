// SPDX-License-Identifier: Apache-2.0
// The few facts the probe needs from the kernel's BTF before it loads its programs, found in one
// linear pass over the raw type section instead of a full libbpf parse. libbpf parses the same
// 5-6 MB again for CO-RE while loading; a full parse here as well cost 10-20 ms of a ~80 ms
// start-up, and the name lookups another 2-11 ms (each one a linear search of ~127k types).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace nw::probes {

// Byte offsets of kernel struct members the programs read on rare or cold paths with plain reads
// (bpf_probe_read_kernel) instead of CO-RE; -1 where not found. Each kernel type libbpf relocates
// costs it a linear search of the kernel's ~130,000 BTF types at every start-up (~0.75 ms); these
// five types (13 were once most of libbpf's share of start-up) are read once per throttle, once per
// timer expiry, or by the neighbours' task iterator.
struct KernelOffsets {
  // A throttled group's name, from its cfs_rq: cfs_rq.tg -> task_group.css.cgroup -> cgroup.kn ->
  // kernfs_node.id.
  int64_t cfs_rq_tg = -1, task_group_css = -1, css_cgroup = -1, cgroup_kn = -1, kernfs_node_id = -1;
  int64_t hrtimer_softexpires = -1;          // how late a timer fired
  int64_t pid_level = -1, pid_numbers = -1;  // a task's number in a pid namespace
  bool group_name() const {
    return cfs_rq_tg >= 0 && task_group_css >= 0 && css_cgroup >= 0 && cgroup_kn >= 0 && kernfs_node_id >= 0;
  }
  bool pid() const { return pid_level >= 0 && pid_numbers >= 0; }
};

struct KernelBtfFacts {
  std::set<std::string> tracepoints;       // "sched_switch" for every btf_trace_sched_switch typedef
  int32_t handle_mm_fault_id = -1;         // BTF id of the function, -1 when absent
  bool rq_has_prev_steal_time_rq = false;  // struct rq's member, CONFIG_PARAVIRT_TIME_ACCOUNTING
  bool task_iterator = false;              // the FUNC bpf_iter_task: iter/task programs attach
  bool rdonly_cast = false;                // the kfunc bpf_rdonly_cast (Linux 6.2): bpf/noise.bpf.c's untrusted()
  bool mem_alloc = false;                  // struct bpf_mem_alloc (Linux 6.1): hash elements on demand, any context
  KernelOffsets offsets;
};

// Scans raw BTF (the bytes of /sys/kernel/btf/vmlinux). nullopt when the data is not BTF this
// scanner understands (bad magic, a kind it does not know): the caller then asks libbpf.
std::optional<KernelBtfFacts> scan_kernel_btf(std::string_view raw);

// The member of KernelOffsets that struct `type`'s member `member` fills; nullptr for any other
// pair. (The scanner and libbpf's fallback both ask it.)
int64_t* offset_slot(KernelOffsets& o, std::string_view type, std::string_view member);
// The structs offset_slot asks about.
inline constexpr const char* kOffsetStructs[] = {
    "cfs_rq", "task_group", "cgroup_subsys_state", "cgroup", "kernfs_node", "hrtimer", "pid"};

}  // namespace nw::probes
