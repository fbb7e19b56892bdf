// SPDX-License-Identifier: Apache-2.0
#include "tune/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace nw::tune {

namespace {

int fsync_dir(const std::string& dir) {
  int fd = open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = fsync(fd) == 0 ? 0 : errno;
  close(fd);
  return err;
}

std::string parent_of(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

int write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += size_t(n);
  }
  return 0;
}

}  // namespace

ReadResult read_exact(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {std::nullopt, errno};
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return {std::nullopt, err};
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  close(fd);
  return {std::move(out), 0};
}

int write_exact(const std::string& path, const std::string& bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n;
  do {
    n = write(fd, bytes.data(), bytes.size());
  } while (n < 0 && errno == EINTR);
  int err = n < 0 ? errno : size_t(n) != bytes.size() ? EIO : 0;
  // sysfs reports some refusals only when the file is closed.
  if (close(fd) != 0 && err == 0) err = errno;
  return err;
}

int replace_durably(const std::string& path, const std::string& bytes) {
  std::string dir = parent_of(path);
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) return ec.value();
    chmod(dir.c_str(), 0755);
  }
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int err = write_all(fd, bytes);
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) {
    unlink(tmp.c_str());
    return err;
  }
  return fsync_dir(dir);
}

int remove_durably(const std::string& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return errno;
  return fsync_dir(parent_of(path));
}

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return fmt::format("{} ({})", name ? name : std::to_string(err), std::strerror(err));
}

}  // namespace nw::tune
