// SPDX-License-Identifier: Apache-2.0
#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace nw {

// One buffer sized from fstat where the file system gives a size (regular files, sysfs binary
// attributes such as the 5-6 MB kernel BTF), grown while the file gives more (procfs says 0).
std::optional<std::string> try_read_file(const std::string& path) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (fstat(fd, &st) == 0 && st.st_size > 0) out.resize(size_t(st.st_size));
  size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(std::max<size_t>(out.size() * 2, 4096));
    ssize_t n = read(fd, out.data() + got, out.size() - got);
    if (n <= 0) break;
    got += size_t(n);
  }
  close(fd);
  out.resize(got);
  return out;
}

std::string read_file(const std::string& path) { return try_read_file(path).value_or(""); }

}  // namespace nw
