// SPDX-License-Identifier: Apache-2.0
// The conditions under which `check` fails (exit 2: results taken now are not comparable), on
// fixture trees: on battery, thermal throttling during the check, and even the quietest target
// CPU losing kNoiseFailPpm of its time in the live measurement.
#include <functional>

#include "check/check_context.h"
#include "check/rules.h"
#include "support/check_test_util.h"

namespace nw::check::testing {
namespace {

CpuNoise measured(int cpu, double ppm) {
  CpuNoise n;
  n.cpu = cpu;
  n.noise_ppm = ppm;
  n.measured_ns = 5'000'000'000;
  n.gap_ns = uint64_t(ppm * 5000);
  n.max_gap_ns = 40'000;
  return n;
}

// A writable copy of a fixture tree.
struct TreeCopy : ScratchRoot {
  explicit TreeCopy(const std::string& name) {
    std::filesystem::copy(fixture_sysroot(name), dir(), std::filesystem::copy_options::recursive);
  }
};

TEST(CheckFail, OnBatteryFails) {
  auto r = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"), std::vector<int>{2});
  const Finding* f = r.find("power-supply");
  EXPECT_EQ(f->status, Status::fail) << f->summary;
  EXPECT_NE(f->summary.find("not comparable"), std::string::npos) << f->summary;
  EXPECT_EQ(r.exit_status(), 2);
  // The same laptop plugged in: only warnings left.
  TreeCopy plugged("laptop-hybrid-untuned");
  for (const auto& name : std::filesystem::directory_iterator(plugged.dir() + "/sys/class/power_supply")) {
    std::ifstream type(name.path() / "type");
    std::string t;
    type >> t;
    if (t == "Mains") std::ofstream(name.path() / "online") << "1\n";
  }
  auto on_mains = check_sysroot(plugged.dir(), std::vector<int>{2});
  EXPECT_EQ(on_mains.find("power-supply")->status, Status::ok) << on_mains.find("power-supply")->summary;
  EXPECT_EQ(on_mains.exit_status(), 1);
}

// CPU 3 of the EPYC tree has been throttled 7 times since boot: a warning. One more while the
// check measures is a failure.
TEST(CheckFail, ThermalThrottlingDuringTheCheckFails) {
  TreeCopy tree("epyc-numa2-amd-pstate");
  sys::Sysroot root(tree.dir());
  auto ctx = make_context(root, std::vector<int>{2, 3});
  EXPECT_EQ(check_thermal_throttling(ctx).status, Status::warn) << "throttled since boot only";
  // What run_check does around the live measurement, with the tree changing in between.
  auto measure = [&](const std::function<void()>& during) {
    ctx.throttle_before = read_throttle_counts(sys::Sysroot(tree.dir()), ctx.targets);
    during();
    ctx.throttle_after = read_throttle_counts(sys::Sysroot(tree.dir()), ctx.targets);
    return check_thermal_throttling(ctx);
  };
  EXPECT_EQ(measure([] {}).status, Status::warn) << "no throttling during the check";
  EXPECT_EQ(ctx.throttle_before.at(3), 7u);
  auto f = measure([&] { tree.write("/sys/devices/system/cpu/cpu3/thermal_throttle/package_throttle_count", "8\n"); });
  EXPECT_EQ(f.status, Status::fail);
  EXPECT_EQ(f.cpus, std::vector<int>{3});
  EXPECT_NE(f.summary.find("throttled during this check's measurement (CPU 3: 1 more times)"), std::string::npos)
      << f.summary;
  EXPECT_FALSE(f.fix.empty());
  // The core counter counts too, on a CPU never throttled before.
  f = measure([&] {
    tree.write("/sys/devices/system/cpu/cpu2/thermal_throttle/core_throttle_count", "2\n");
    tree.write("/sys/devices/system/cpu/cpu3/thermal_throttle/package_throttle_count", "10\n");
  });
  EXPECT_EQ(f.cpus, (std::vector<int>{2, 3}));
  EXPECT_NE(f.summary.find("CPU 2: 2, CPU 3: 2"), std::string::npos) << f.summary;
}

TEST(CheckFail, NoisiestQuietestCpuFails) {
  sys::Sysroot root(fixture_sysroot("vm-firecracker-2cpu"));
  auto ctx = make_context(root, std::nullopt);
  // Only the quietest CPU counts: the benchmark can be moved to it.
  auto ok = check_measured_noise(ctx, {measured(0, 400'000), measured(1, 9'999)});
  EXPECT_EQ(ok.status, Status::ok) << ok.summary;
  EXPECT_EQ(ok.cpus, std::vector<int>{1});
  EXPECT_EQ(check_measured_noise(ctx, {measured(0, 400'000), measured(1, kNoiseWarnPpm)}).status, Status::warn);
  auto fail = check_measured_noise(ctx, {measured(0, kNoiseFailPpm), measured(1, 389'537)});
  EXPECT_EQ(fail.status, Status::fail) << fail.summary;
  EXPECT_EQ(fail.cpus, std::vector<int>{0});
  EXPECT_NE(fail.summary.find("CPU 0, lost 10.00% of 5.0 s"), std::string::npos) << fail.summary;
  EXPECT_NE(fail.summary.find("not comparable"), std::string::npos) << fail.summary;
  EXPECT_EQ(check_measured_noise(ctx, {measured(0, kNoiseFailPpm - 1)}).status, Status::warn);
  EXPECT_EQ(check_measured_noise(ctx, {}).status, Status::unknown);
}

TEST(CheckFail, ExitTwoOnAnyFailureAndOnlyThen) {
  auto r = check_sysroot(fixture_sysroot("vm-firecracker-2cpu"));
  EXPECT_EQ(r.exit_status(), 1);
  EXPECT_EQ(r.find("measured-noise"), nullptr) << "only after a live measurement";
  sys::Sysroot root(fixture_sysroot("vm-firecracker-2cpu"));
  r.findings.push_back(check_measured_noise(make_context(root, std::nullopt), {measured(1, 150'000)}));
  EXPECT_EQ(r.exit_status(), 2);
}

}  // namespace
}  // namespace nw::check::testing
