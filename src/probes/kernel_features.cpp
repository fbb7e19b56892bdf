// SPDX-License-Identifier: Apache-2.0
#include "probes/kernel_features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "common/errors.h"
#include "probes/kernel_btf_bytes.h"
#include "probes/kernel_btf_scan.h"
#include "probes/rare_vectors.h"
#include "sources/kernel_names.h"

namespace nw::probes {

namespace {

// The same facts from a full libbpf parse, for BTF the scanner does not understand.
KernelBtfFacts facts_from_libbpf(bpf_object* obj) {
  std::vector<std::string> tracepoints;
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    std::string sec = bpf_program__section_name(prog);
    if (sec.starts_with("tp_btf/")) tracepoints.push_back(sec.substr(sec.find('/') + 1));
  }
  KernelBtfFacts f;
  btf* vmlinux = btf__load_vmlinux_btf();
  if (!vmlinux) throw Error(fmt::format("cannot read the kernel's BTF from {}", kVmlinuxBtf));
  for (const auto& tp : tracepoints)
    if (btf__find_by_name_kind(vmlinux, ("btf_trace_" + tp).c_str(), BTF_KIND_TYPEDEF) >= 0) f.tracepoints.insert(tp);
  f.handle_mm_fault_id = btf__find_by_name_kind(vmlinux, "handle_mm_fault", BTF_KIND_FUNC);
  f.task_iterator = btf__find_by_name_kind(vmlinux, "bpf_iter_task", BTF_KIND_FUNC) >= 0;
  f.rdonly_cast = btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) >= 0;
  f.mem_alloc = btf__find_by_name_kind(vmlinux, "bpf_mem_alloc", BTF_KIND_STRUCT) >= 0;
  std::vector<const char*> structs{"rq"};
  structs.insert(structs.end(), std::begin(kOffsetStructs), std::end(kOffsetStructs));
  for (const char* type : structs) {
    int id = btf__find_by_name_kind(vmlinux, type, BTF_KIND_STRUCT);
    if (id < 0) continue;
    const btf_type* t = btf__type_by_id(vmlinux, uint32_t(id));
    const btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i, ++m) {
      const std::string_view member = btf__name_by_offset(vmlinux, m->name_off);
      if (std::string_view(type) == "rq" && member == "prev_steal_time_rq") f.rq_has_prev_steal_time_rq = true;
      if (int64_t* slot = offset_slot(f.offsets, type, member)) *slot = btf_member_bit_offset(t, i) / 8;
    }
  }
  btf__free(vmlinux);
  return f;
}

// Whether the kernel lets us trace the function with fentry programs, asked with the smallest
// such program ("return 0"): kernels in lockdown, or without ftrace direct calls, refuse with
// EPERM or ENOTSUPP. Returns 0 or the errno; costs one small load, not a failed load of the
// whole object.
int fentry_refused(int32_t func_id) {
  if (func_id < 0) return ENOENT;
  const bpf_insn insns[] = {{BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0}, {BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY, .attach_btf_id = uint32_t(func_id));
  int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "nw_fentry_probe", "GPL", insns, 2, &opts);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

std::string fault_time_reason(int refused) {
  if (refused == ENOENT)
    return "this kernel's BTF has no handle_mm_fault to trace: page faults are counted (getrusage) and their "
           "cost estimated";
  return fmt::format(
      "this kernel refuses fentry programs on handle_mm_fault ({}{}): page faults are counted "
      "(getrusage) and their cost estimated",
      std::strerror(refused),
      refused == EPERM ? ": kernel lockdown or a security policy forbids tracing kernel functions" : "");
}

}  // namespace

ProgramPlan plan_programs(bpf_object* obj, bool (*skip)(const std::string& section)) {
  auto scanned = scan_kernel_btf(KernelBtfBytes().bytes());
  const KernelBtfFacts facts = scanned ? *scanned : facts_from_libbpf(obj);

  ProgramPlan plan;
  plan.measures_steal = facts.rq_has_prev_steal_time_rq;
  plan.rdonly_cast = facts.rdonly_cast;
  plan.mem_alloc = facts.mem_alloc;
  plan.offsets = facts.offsets;
  const int fault_refused = fentry_refused(facts.handle_mm_fault_id);
  plan.fault_time = fault_refused == 0;
  std::set<std::string> missing_vectors;
  plan.interrupts_at_start = sys::read_interrupts();
  plan.untraced_vectors = never_fired_vectors(plan.interrupts_at_start);
  auto untraced = [&](const std::string& tp) {
    auto v = sources::vector_of_tracepoint(tp.substr(0, tp.rfind('_')));
    return v &&
           std::find(plan.untraced_vectors.begin(), plan.untraced_vectors.end(), *v) != plan.untraced_vectors.end();
  };
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    std::string sec = bpf_program__section_name(prog);
    std::string tp = sec.substr(sec.find('/') + 1);
    if (skip(sec)) continue;
    if (sec.starts_with("fentry/") || sec.starts_with("fexit/")) {
      // Fault time: attached on its own after the rest, so that an attach failure costs only
      // this source.
      bpf_program__set_autoattach(prog, false);
      if (!plan.fault_time) bpf_program__set_autoload(prog, false);
      continue;
    }
    if (sec.starts_with("iter/")) {
      // The neighbours' task iterator: without it they are read from /proc, slower, the same.
      if (!facts.task_iterator || !facts.offsets.pid()) bpf_program__set_autoload(prog, false);
      continue;
    }
    if (untraced(tp)) {
      bpf_program__set_autoload(prog, false);
      continue;
    }
    if (facts.tracepoints.count(tp)) continue;
    bpf_program__set_autoload(prog, false);
    if (tp == "nmi_handler") plan.unavailable.push_back({"nmi", "this kernel has no nmi:nmi_handler tracepoint"});
    else if (tp == "cpu_frequency")
      plan.unavailable.push_back({"frequency", "this kernel has no power:cpu_frequency tracepoint"});
    else if (tp == "csd_queue_cpu")
      plan.unavailable.push_back({"blocking cause",
                                  "this kernel has no csd:csd_queue_cpu tracepoint (Linux 6.3+): "
                                  "a blocked benchmark woken through another CPU's wake list (an idle "
                                  "CPU woken by an IPI) is blocking:other"});
    else if (tp.size() > 6 && (tp.ends_with("_entry") || tp.ends_with("_exit")))
      missing_vectors.insert(tp.substr(0, tp.rfind('_')));
  }
  if (!plan.fault_time) plan.unavailable.push_back({"fault time", fault_time_reason(fault_refused)});
  // The frequent vectors are said missing (the rare ones are left untraced anyway where they
  // never fired: rare_vectors.h).
  for (const auto& v : missing_vectors)
    if (auto id = sources::vector_of_tracepoint(v); id && sources::vector_is_frequent(*id))
      plan.unavailable.push_back({"irq:" + v, "this kernel has no irq_vectors:" + v + " tracepoints (not x86?)"});
  return plan;
}

}  // namespace nw::probes
