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

struct KernelBtfFacts {
  std::set<std::string> tracepoints;        // "sched_switch" for every btf_trace_sched_switch typedef
  int32_t handle_mm_fault_id = -1;          // BTF id of the function, -1 when absent
  bool rq_has_prev_steal_time_rq = false;   // struct rq's member, CONFIG_PARAVIRT_TIME_ACCOUNTING
  bool task_iterator = false;               // the FUNC bpf_iter_task: iter/task programs attach
};

// Scans raw BTF (the bytes of /sys/kernel/btf/vmlinux). nullopt when the data is not BTF this
// scanner understands (bad magic, a kind it does not know): the caller then asks libbpf.
std::optional<KernelBtfFacts> scan_kernel_btf(std::string_view raw);

}  // namespace nw::probes
