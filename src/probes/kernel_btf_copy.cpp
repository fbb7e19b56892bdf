#include "probes/kernel_btf_copy.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "common/files.h"

namespace nw::probes {

namespace {

constexpr const char* kCacheDir = "/run/noisewatch";

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// This boot's copy: /run/noisewatch/vmlinux-<boot id>.btf, a regular file of root's, no one
// else may write, as long as the sysfs file. Made (atomically: written aside, then renamed) when
// missing; copies of earlier boots go. "" with `why` when there is none to use.
std::string btf_copy(std::string& why) {
  std::string boot = trimmed(read_file("/proc/sys/kernel/random/boot_id"));
  struct stat sys {};
  if (boot.empty() || stat(kVmlinuxBtf, &sys) != 0 || sys.st_size <= 0) {
    why = "no boot id or no kernel BTF size";
    return {};
  }
  std::string path = fmt::format("{}/vmlinux-{}.btf", kCacheDir, boot);
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022) && st.st_size == sys.st_size) return path;
    why = path + " is not a copy noisewatch made";
    return {};
  }
  if (geteuid() != 0) {
    why = "not root: no copy made";
    return {};
  }
  if (mkdir(kCacheDir, 0755) != 0 && errno != EEXIST) {
    why = fmt::format("cannot create {}: {}", kCacheDir, std::strerror(errno));
    return {};
  }
  struct stat dir {};
  if (lstat(kCacheDir, &dir) != 0 || !S_ISDIR(dir.st_mode) || dir.st_uid != 0 || (dir.st_mode & 022)) {
    why = fmt::format("{} is not root's own directory", kCacheDir);
    return {};
  }
  KernelBtfBytes btf;
  std::string_view bytes = btf.bytes();
  if (bytes.size() != size_t(sys.st_size)) {
    why = "the kernel's BTF could not be read whole";
    return {};
  }
  std::string tmp = fmt::format("{}.{}.tmp", path, getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    why = fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
    return {};
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += size_t(n);
  }
  close(fd);
  if (done != bytes.size() || rename(tmp.c_str(), path.c_str()) != 0) {
    why = fmt::format("cannot write {}", path);
    unlink(tmp.c_str());
    return {};
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kCacheDir, ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with("vmlinux-") && name.ends_with(".btf") && e.path() != path) std::filesystem::remove(e.path(), ec);
  }
  return path;
}

}  // namespace

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

int load_with_btf_copy(const std::function<int()>& load, std::string& how) {
  std::string why;
  std::string copy = btf_copy(why);
  int result = 0;
  // The thread's own filesystem context and mount namespace: the rest of noisewatch, and the
  // benchmark it forks later, see the machine's mounts as they are. Mounts are made private
  // first, so the bind mount does not propagate back to the machine's namespace.
  std::thread loader([&] {
    if (!copy.empty()) {
      if (unshare(CLONE_FS | CLONE_NEWNS) != 0)
        why = fmt::format("no mount namespace ({})", std::strerror(errno));
      else if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
               mount(copy.c_str(), kVmlinuxBtf, nullptr, MS_BIND, nullptr) != 0)
        why = fmt::format("cannot bind-mount the copy ({})", std::strerror(errno));
      else
        how = "libbpf read the cached copy " + copy;
    }
    result = load();
  });
  loader.join();
  if (how.empty()) how = "libbpf read sysfs: " + why;
  return result;
}

}  // namespace nw::probes
