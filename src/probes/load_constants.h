// SPDX-License-Identifier: Apache-2.0
// Configuration the eBPF programs take as immediates, written into their instructions at load
// time, instead of loading it from .rodata on every call. On this project's VMs (page-table
// isolation without PCID: every kernel entry starts with a cold TLB) a value the program must
// load before it can compute an address costs a cold miss in series with the next one: the task
// slot's index (pid & slot mask) taken from .rodata made on_wakeup wait for two misses in a row
// (bench/HISTORY.md, 2026-12-07, afternoon).
// The mechanism is CO-RE's: an enum relocation (bpf_core_enum_value) is resolved against the
// kernel's BTF into an immediate, and noisewatch hands libbpf that BTF itself
// (kernel_btf_bytes.h). While a LoadConstantsScope lives, what it hands over is the kernel's BTF
// with one more type on top, `enum nw_load_constant`, whose enumerators are the constants: a split
// BTF of one type whose base is the kernel's, so the kernel's 5.5 MB are not copied again (a
// copy's fresh pages cost up to 15 ms of start-up here). The programs keep the .rodata copy for a
// BTF without it (bpf_core_enum_value_exists), so a load without the scope stays correct.
// libbpf reads kernel modules' BTF on top of the BTF it was handed when a name is not in the
// kernel's own (a kfunc the kernel lacks, a type no CO-RE candidate matches); on top of the split
// their ids and names would be off. Callers set constants only where every name is the kernel's.
#pragma once
#include <bpf/btf.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nw::probes {

inline constexpr const char* kLoadConstantsEnum = "nw_load_constant";

struct LoadConstant {
  std::string name;  // the enumerator's name in bpf/noise.bpf.c
  uint32_t value;
};

// For its lifetime, loads of the kernel's BTF through btf__load_vmlinux_btf() carry `constants`.
// The kernel's BTF under each split handed out is freed with the scope: a split must not outlive
// it (libbpf frees its own at the end of the load).
class LoadConstantsScope {
 public:
  explicit LoadConstantsScope(std::vector<LoadConstant> constants);
  ~LoadConstantsScope();
  LoadConstantsScope(const LoadConstantsScope&) = delete;
  LoadConstantsScope& operator=(const LoadConstantsScope&) = delete;
};

// `base` with `enum nw_load_constant` on top (id btf__type_cnt(base)), as a split BTF; the
// scope alive now takes `base` and frees it with itself. nullptr, `base` untouched, outside a
// scope or where the split cannot be made.
btf* with_load_constants(btf* base);

}  // namespace nw::probes
