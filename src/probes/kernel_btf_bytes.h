// The kernel's BTF bytes, cheaply: sysfs hands /sys/kernel/btf/vmlinux out one page per read()
// (1,350 system calls for 5.5 MB), while Linux 6.16 and later let it be mapped in one call. The
// probe's scan (kernel_btf_scan.h) reads it through this. (libbpf 1.1 reads it again with read();
// a per-boot copy bind-mounted over the sysfs path for the loading thread alone was tried and
// measured: no difference beyond the noise, 1.3 ms over 8 alternating pairs, so it is not done.)
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

 private:
  std::string_view map_;
  std::string copy_;
};

}  // namespace nw::probes
