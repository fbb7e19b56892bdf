// SPDX-License-Identifier: Apache-2.0
#include "tune/services.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include <fmt/format.h>

#include "system/sysroot.h"
#include "tune/file_io.h"

extern char** environ;

namespace nw::tune {

namespace {

// Runs systemctl with its output discarded; the exit status, or -errno when it cannot start.
int systemctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"systemctl"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int err = posix_spawnp(&pid, "systemctl", &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err) return -err;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string outcome(const char* verb, const std::string& unit, int rc) {
  if (rc == 0) return "";
  if (rc < 0) return fmt::format("cannot run systemctl {} {}: {}", verb, unit, errno_text(-rc));
  return fmt::format("systemctl {} {} failed (exit {})", verb, unit, rc);
}

class Systemd : public Services {
 public:
  std::string unavailable() const override {
    if (access("/run/systemd/system", F_OK) != 0)
      return "systemd is not running here (no /run/systemd/system): stop and start the service by hand";
    return "";
  }
  bool active(const std::string& unit) override { return systemctl({"is-active", "--quiet", unit}) == 0; }
  std::string stop(const std::string& unit) override { return outcome("stop", unit, systemctl({"stop", unit})); }
  std::string start(const std::string& unit) override { return outcome("start", unit, systemctl({"start", unit})); }
};

class NoServices : public Services {
 public:
  std::string unavailable() const override {
    return "services are not part of a /proc and /sys copy (--sysroot): nothing to stop";
  }
  bool active(const std::string&) override { return false; }
  std::string stop(const std::string&) override { return unavailable(); }
  std::string start(const std::string&) override { return unavailable(); }
};

}  // namespace

std::unique_ptr<Services> make_services(const sys::Sysroot& root) {
  if (root.live()) return std::make_unique<Systemd>();
  return std::make_unique<NoServices>();
}

}  // namespace nw::tune
