// SPDX-License-Identifier: Apache-2.0
// What this kernel lets the probe run, decided before its object is loaded: programs on
// tracepoints the kernel lacks (another arch, an older kernel) are left out and said so; fault
// time needs fentry on handle_mm_fault, which lockdown or a security policy may refuse; precise
// steal needs struct rq's prev_steal_time_rq.
#pragma once
#include <string>
#include <vector>

#include "probes/kernel_btf_scan.h"
#include "record/run_record.h"
#include "system/interrupts.h"

struct bpf_object;

namespace nw::probes {

struct ProgramPlan {
  bool fault_time = false;      // the fentry/fexit pair loads (attached separately, after the rest)
  bool measures_steal = false;  // the programs read rq->prev_steal_time_rq
  bool rdonly_cast = false;     // the kfunc bpf_rdonly_cast is there (Linux 6.2): quicker verification
  bool mem_alloc = false;       // BPF's any-context allocator (Linux 6.1): a hash need not be preallocated
  KernelOffsets offsets;        // for the programs' plain reads (probes/kernel_btf_scan.h)
  std::vector<nw::Unavailable> unavailable;
  // Rare APIC vectors left untraced because they never fired since boot (probes/rare_vectors.h),
  // and /proc/interrupts as it was read to decide.
  std::vector<uint32_t> untraced_vectors;
  sys::Interrupts interrupts_at_start;
};

// Sets autoload/autoattach on the object's programs; sections `skip` accepts are left alone.
ProgramPlan plan_programs(bpf_object* obj, bool (*skip)(const std::string& section));

}  // namespace nw::probes
