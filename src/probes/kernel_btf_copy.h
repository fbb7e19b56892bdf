// The kernel's BTF, read cheaply. sysfs hands /sys/kernel/btf/vmlinux out one page per read():
// 1,350 system calls for 5.5 MB, ~26 ms on a VM whose system calls trap to the host, and both the
// probe's scan and libbpf (1.1: no mmap) used to read it on every start. The BTF does not change
// during a boot, so:
//   - the scan maps the sysfs file (Linux 6.16+ allows it; else it reads it once);
//   - libbpf reads a copy in /run/noisewatch/, made once per boot, which a mount namespace private
//     to the loading thread puts over the sysfs path (a bind mount): one read() of a regular file.
// Without the right to mount (no CAP_SYS_ADMIN) or to write /run, libbpf reads sysfs as before.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace nw::probes {

inline constexpr const char* kVmlinuxBtf = "/sys/kernel/btf/vmlinux";

// The bytes of the kernel's BTF for as long as the object lives: mapped where the kernel allows
// it, else read.
class KernelBtfBytes {
 public:
  KernelBtfBytes();
  ~KernelBtfBytes();
  KernelBtfBytes(const KernelBtfBytes&) = delete;
  KernelBtfBytes& operator=(const KernelBtfBytes&) = delete;
  std::string_view bytes() const { return map_.empty() ? std::string_view(copy_) : map_; }

 private:
  std::string_view map_;
  std::string copy_;
};

// Runs `load` (libbpf's object load) on a thread that sees this boot's copy of the kernel's BTF
// at kVmlinuxBtf, and returns its result. `how` says which way it went (for NOISEWATCH_TIMING):
// "cached copy <path>", or why sysfs was read.
int load_with_btf_copy(const std::function<int()>& load, std::string& how);

}  // namespace nw::probes
