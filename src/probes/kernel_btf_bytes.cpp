// SPDX-License-Identifier: Apache-2.0
#include "probes/kernel_btf_bytes.h"

#include <bpf/btf.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "common/files.h"
#include "probes/load_constants.h"
#include "system/huge_heap.h"

namespace nw::probes {

namespace {

// The file mapped, or empty where the kernel does not allow it (before 6.16).
std::string_view map_vmlinux_btf() {
  std::string_view map;
  int fd = open(kVmlinuxBtf, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) map = {static_cast<const char*>(p), size_t(st.st_size)};
  }
  if (fd >= 0) close(fd);
  return map;
}

void unmap(std::string_view map) {
  if (!map.empty()) munmap(const_cast<char*>(map.data()), map.size());
}

std::atomic<int> loads_from_map{0};

}  // namespace

KernelBtfBytes::KernelBtfBytes() : map_(map_vmlinux_btf()) {
  if (map_.empty()) copy_ = read_file(kVmlinuxBtf);
}

KernelBtfBytes::~KernelBtfBytes() { unmap(map_); }

int libbpf_kernel_btf_loads_from_map() { return loads_from_map.load(); }

}  // namespace nw::probes

// libbpf's own call to this function goes through its PLT, so this definition, which the
// executable exports (CMakeLists.txt: --export-dynamic-symbol), is the one it reaches: the file
// mapped and parsed from the mapping. Where the kernel does not map it, or the parse fails,
// libbpf's own definition (the next one in lookup order) does the work. Either way, inside a
// LoadConstantsScope the result carries the load constants (load_constants.h). (This needs the
// shared libbpf, as Debian ships it: a static one would clash with this definition at link time.)
namespace {

btf* parse_vmlinux_btf() {
  std::string_view map = nw::probes::map_vmlinux_btf();
  if (!map.empty()) {
    btf* parsed = nullptr;
    {
      // The copy and its type index in huge pages: see system/huge_heap.h.
      nw::sys::HugeHeapScope huge(2 * map.size());
      parsed = btf__new(map.data(), uint32_t(map.size()));  // a copy: the mapping can go
    }
    int err = errno;
    nw::probes::unmap(map);
    if (parsed) {
      ++nw::probes::loads_from_map;
      return parsed;
    }
    errno = err;
  }
  using Load = btf* (*)();
  static const auto libbpf_own = reinterpret_cast<Load>(dlsym(RTLD_NEXT, "btf__load_vmlinux_btf"));
  if (!libbpf_own) {
    errno = ENOSYS;
    return nullptr;
  }
  return libbpf_own();
}

}  // namespace

extern "C" struct btf* btf__load_vmlinux_btf(void) {
  btf* parsed = parse_vmlinux_btf();
  btf* with = nw::probes::with_load_constants(parsed);
  return with ? with : parsed;
}
