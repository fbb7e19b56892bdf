// SPDX-License-Identifier: Apache-2.0
#include "probes/kernel_btf_scan.h"

#include <linux/btf.h>

#include <cstring>

namespace nw::probes {

namespace {

// Bytes that follow a struct btf_type of this kind (include/uapi/linux/btf.h); -1 for a kind
// this scanner does not know.
long trailer_size(uint32_t kind, uint32_t vlen) {
  switch (kind) {
    case BTF_KIND_INT:
      return 4;
    case BTF_KIND_PTR:
    case BTF_KIND_FWD:
    case BTF_KIND_TYPEDEF:
    case BTF_KIND_VOLATILE:
    case BTF_KIND_CONST:
    case BTF_KIND_RESTRICT:
    case BTF_KIND_FUNC:
    case BTF_KIND_FLOAT:
    case BTF_KIND_TYPE_TAG:
      return 0;
    case BTF_KIND_ARRAY:
      return sizeof(btf_array);
    case BTF_KIND_STRUCT:
    case BTF_KIND_UNION:
      return long(vlen) * long(sizeof(btf_member));
    case BTF_KIND_ENUM:
      return long(vlen) * long(sizeof(btf_enum));
    case BTF_KIND_FUNC_PROTO:
      return long(vlen) * long(sizeof(btf_param));
    case BTF_KIND_VAR:
      return sizeof(btf_var);
    case BTF_KIND_DATASEC:
      return long(vlen) * long(sizeof(btf_var_secinfo));
    case BTF_KIND_DECL_TAG:
      return sizeof(btf_decl_tag);
    case BTF_KIND_ENUM64:
      return long(vlen) * long(sizeof(btf_enum64));
    default:
      return -1;
  }
}

// The structs whose members the scan reads (most of the kernel's ~20,000 structs are not).
bool wanted_struct(std::string_view type) {
  if (type == "rq") return true;
  for (const char* s : kOffsetStructs)
    if (type == s) return true;
  return false;
}

}  // namespace

int64_t* offset_slot(KernelOffsets& o, std::string_view type, std::string_view member) {
  if (type == "cfs_rq" && member == "tg") return &o.cfs_rq_tg;
  if (type == "task_group" && member == "css") return &o.task_group_css;
  if (type == "cgroup_subsys_state" && member == "cgroup") return &o.css_cgroup;
  if (type == "cgroup" && member == "kn") return &o.cgroup_kn;
  if (type == "kernfs_node" && member == "id") return &o.kernfs_node_id;
  if (type == "hrtimer" && member == "_softexpires") return &o.hrtimer_softexpires;
  if (type == "pid" && member == "level") return &o.pid_level;
  if (type == "pid" && member == "numbers") return &o.pid_numbers;
  return nullptr;
}

std::optional<KernelBtfFacts> scan_kernel_btf(std::string_view raw) {
  btf_header h{};
  if (raw.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, raw.data(), sizeof h);
  if (h.magic != BTF_MAGIC || h.hdr_len < sizeof h) return std::nullopt;
  const uint64_t types = uint64_t(h.hdr_len) + h.type_off, strings = uint64_t(h.hdr_len) + h.str_off;
  if (types + h.type_len > raw.size() || strings + h.str_len > raw.size() || h.str_len == 0) return std::nullopt;
  const char* strtab = raw.data() + strings;
  auto name = [&](uint32_t off) -> std::string_view {
    if (off >= h.str_len) return {};
    return std::string_view(strtab + off, strnlen(strtab + off, h.str_len - off));
  };

  constexpr std::string_view kTracePrefix = "btf_trace_";
  KernelBtfFacts facts;
  const char* p = raw.data() + types;
  const char* end = p + h.type_len;
  for (int32_t id = 1; p < end; ++id) {
    if (size_t(end - p) < sizeof(btf_type)) return std::nullopt;
    btf_type t{};
    std::memcpy(&t, p, sizeof t);
    const uint32_t kind = BTF_INFO_KIND(t.info), vlen = BTF_INFO_VLEN(t.info);
    const long extra = trailer_size(kind, vlen);
    if (extra < 0 || size_t(end - p) < sizeof t + size_t(extra)) return std::nullopt;
    if (kind == BTF_KIND_TYPEDEF) {
      auto n = name(t.name_off);
      if (n.starts_with(kTracePrefix)) facts.tracepoints.emplace(n.substr(kTracePrefix.size()));
    } else if (kind == BTF_KIND_FUNC) {
      auto n = name(t.name_off);
      if (facts.handle_mm_fault_id < 0 && n == "handle_mm_fault") facts.handle_mm_fault_id = id;
      if (n == "bpf_iter_task") facts.task_iterator = true;
      if (n == "bpf_rdonly_cast") facts.rdonly_cast = true;
    } else if (kind == BTF_KIND_STRUCT && name(t.name_off) == "bpf_mem_alloc") {
      facts.mem_alloc = true;
    } else if (kind == BTF_KIND_STRUCT && wanted_struct(name(t.name_off))) {
      const auto type = name(t.name_off);
      for (uint32_t i = 0; i < vlen; ++i) {
        btf_member m{};
        std::memcpy(&m, p + sizeof t + i * sizeof m, sizeof m);
        const auto member = name(m.name_off);
        if (type == "rq" && member == "prev_steal_time_rq") facts.rq_has_prev_steal_time_rq = true;
        // The first struct of that name (a kernel's BTF has one of each of these).
        if (int64_t* slot = offset_slot(facts.offsets, type, member); slot && *slot < 0)
          *slot = (BTF_INFO_KFLAG(t.info) ? BTF_MEMBER_BIT_OFFSET(m.offset) : m.offset) / 8;
      }
    }
    p += sizeof t + size_t(extra);
  }
  return facts;
}

}  // namespace nw::probes
