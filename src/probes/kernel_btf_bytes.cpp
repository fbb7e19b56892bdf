#include "probes/kernel_btf_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/files.h"

namespace nw::probes {

KernelBtfBytes::KernelBtfBytes() {
  int fd = open(kVmlinuxBtf, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) map_ = {static_cast<const char*>(p), size_t(st.st_size)};
  }
  if (fd >= 0) close(fd);
  if (map_.empty()) copy_ = read_file(kVmlinuxBtf);
}

KernelBtfBytes::~KernelBtfBytes() {
  if (!map_.empty()) munmap(const_cast<char*>(map_.data()), map_.size());
}

}  // namespace nw::probes
