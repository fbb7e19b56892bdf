// Start-up (issue #27 §2): libbpf reads this boot's copy of the kernel's BTF through a mount
// namespace of the loading thread only, the machine's mounts stay as they were, and
// NOISEWATCH_TIMING's phases fit inside the command's own time.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <regex>

#include "run_helpers.h"

namespace nw::e2e {
namespace {

std::string boot_id() {
  std::string id = test::slurp("/proc/sys/kernel/random/boot_id");
  while (!id.empty() && id.back() == '\n') id.pop_back();
  return id;
}

double monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

TEST(StartupE2E, LibbpfReadsThisBootsBtfCopyAndTheMachinesMountsStayAsTheyWere) {
  const std::string mounts_before = test::slurp("/proc/self/mountinfo");
  setenv("NOISEWATCH_TIMING", "1", 1);
  const double t0 = monotonic_ms();
  Proc p = run({noisewatch(), "--runs", "2", "--warmup", "0", "-q", "--", "true"});
  const double wall_ms = monotonic_ms() - t0;
  unsetenv("NOISEWATCH_TIMING");
  ASSERT_EQ(p.status, 0) << p.err;
  // The copy: root's, as long as the kernel's BTF, named by this boot.
  const std::string copy = "/run/noisewatch/vmlinux-" + boot_id() + ".btf";
  struct stat c {}, k {};
  ASSERT_EQ(stat(copy.c_str(), &c), 0) << copy;
  ASSERT_EQ(stat("/sys/kernel/btf/vmlinux", &k), 0);
  EXPECT_EQ(c.st_size, k.st_size);
  EXPECT_EQ(c.st_uid, 0u);
  EXPECT_EQ(c.st_mode & 022, 0u);
  EXPECT_NE(p.err.find("kernel BTF: libbpf read the cached copy " + copy), std::string::npos) << p.err;
  // No mount left behind, none propagated to the machine's namespace.
  EXPECT_EQ(test::slurp("/proc/self/mountinfo"), mounts_before);
  EXPECT_EQ(test::slurp("/proc/self/mountinfo").find("/sys/kernel/btf/vmlinux"), std::string::npos);
  // The phases add up to at most the command's wall time as this test saw it.
  const size_t at = p.err.find("noisewatch: timing: options");
  ASSERT_NE(at, std::string::npos) << p.err;
  const std::string line = p.err.substr(at, p.err.find('\n', at) - at);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(\(total ([0-9.]+) ms since main\))"))) << line;
  const double total = std::stod(m[1]);
  EXPECT_GT(total, 0);
  EXPECT_LE(total, wall_ms);
  double sum = 0;
  std::string phases = line.substr(0, line.find("(total"));
  const std::regex ms(R"(([0-9.]+) ms)");
  for (std::sregex_iterator it(phases.begin(), phases.end(), ms), end; it != end; ++it)
    sum += std::stod((*it)[1]);
  EXPECT_LE(sum, total + 0.05);
  EXPECT_NE(p.err.find("per repetition (mean of 2)"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("verifier on_switch"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace nw::e2e
