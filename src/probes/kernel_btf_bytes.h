// SPDX-License-Identifier: Apache-2.0
// The kernel's BTF bytes, cheaply: sysfs hands /sys/kernel/btf/vmlinux out one page per read()
// (1,350 system calls for 5.5 MB), while Linux 6.16 and later let it be mapped in one call. The
// probe's scan (kernel_btf_scan.h) reads it through this.
// libbpf reads the file again, through btf__load_vmlinux_btf(): version 1.1 (Debian 12's) reads it
// with stdio, a page per read(), into one buffer and copies that into a second. This file also
// defines that function (see the .cpp): where the kernel maps the file, libbpf gets it parsed from
// the mapping, one copy, no reads. Measured, `noisewatch --runs 1 --warmup 0 -q -- true`, 40
// alternating pairs: the probe's load 26.4 -> 22.3 ms, wall 42.1 -> 38.0 ms (bench/HISTORY.md,
// 2026-12-04). (A per-boot copy bind-mounted over the sysfs path for the loading thread, tried
// before, saved only the system calls: 1.3 ms.)
#pragma once
#include <string>
#include <string_view>

namespace nw::probes {

inline constexpr const char* kVmlinuxBtf = "/sys/kernel/btf/vmlinux";

// The bytes for as long as the object lives: mapped where the kernel allows it, else read.
class KernelBtfBytes {
 public:
  KernelBtfBytes();
  ~KernelBtfBytes();
  KernelBtfBytes(const KernelBtfBytes&) = delete;
  KernelBtfBytes& operator=(const KernelBtfBytes&) = delete;
  std::string_view bytes() const { return map_.empty() ? std::string_view(copy_) : map_; }
  bool mapped() const { return !map_.empty(); }

 private:
  std::string_view map_;
  std::string copy_;
};

// How many times libbpf (or anyone in this process) got the kernel's BTF parsed from the mapping.
int libbpf_kernel_btf_loads_from_map();

}  // namespace nw::probes
