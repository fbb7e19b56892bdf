// SPDX-License-Identifier: Apache-2.0
// `noisewatch snapshot`: the files read, written back byte for byte, give the same findings.
#include "check/check_context.h"
#include "check/rules.h"
#include "support/check_test_util.h"
#include "system/sysroot.h"

namespace nw::check::testing {
namespace {

std::vector<Finding> all_findings(const sys::Sysroot& root, std::optional<std::vector<int>> cpus) {
  auto ctx = make_context(root, cpus);
  return run_all_checks(ctx);
}

void expect_same(const std::vector<Finding>& a, const std::vector<Finding>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].status, b[i].status) << a[i].id << ": " << a[i].summary << " vs " << b[i].summary;
    EXPECT_EQ(a[i].summary, b[i].summary);
    EXPECT_EQ(a[i].cpus, b[i].cpus) << a[i].id;
    EXPECT_EQ(a[i].fix, b[i].fix) << a[i].id;
  }
}

TEST(CheckSnapshot, LiveMachineCopyGivesTheSameFindings) {
  sys::Sysroot live;
  auto online = make_context(live, std::nullopt).topo.online;
  auto before = all_findings(live, online);
  ScratchRoot out;
  std::string dir = out.dir() + "/snap";
  sys::write_snapshot(live, dir);
  sys::Sysroot copy(dir);
  expect_same(before, all_findings(copy, online));
  // And for a single CPU too: the copy holds the files of every online CPU. (The same `live`
  // object answers from the bytes it read before, as the live machine has moved on since.)
  expect_same(all_findings(live, std::vector<int>{online.back()}), all_findings(copy, std::vector<int>{online.back()}));
}

TEST(CheckSnapshot, FixtureCopyGivesTheSameFindingsAndOnlyWhatWasRead) {
  sys::Sysroot fixture(fixture_sysroot("laptop-hybrid-untuned"));
  auto online = make_context(fixture, std::nullopt).topo.online;
  auto before = all_findings(fixture, online);
  ScratchRoot out;
  sys::write_snapshot(fixture, out.dir());
  sys::Sysroot copy(out.dir());
  expect_same(before, all_findings(copy, online));
  expect_same(all_findings(sys::Sysroot(fixture_sysroot("laptop-hybrid-untuned")), std::vector<int>{2}),
              all_findings(copy, std::vector<int>{2}));
  // Only files that a check reads: not the process cmdlines or the unrelated sysctls.
  EXPECT_TRUE(std::filesystem::exists(out.dir() + "/proc/812/stat"));
  EXPECT_FALSE(std::filesystem::exists(out.dir() + "/proc/812/cmdline"));
  EXPECT_FALSE(std::filesystem::exists(out.dir() + "/proc/sys/vm/swappiness"));
}

TEST(CheckSnapshot, SysrootReadsUnderTheRootAndRecordsBytes) {
  ScratchRoot t;
  t.write("/proc/loadavg", "0.50 0.40 0.30 1/10 5\n");
  t.mkdir("/sys/class/power_supply");
  sys::Sysroot root(t.dir() + "/");
  EXPECT_EQ(root.read_line("/proc/loadavg"), "0.50 0.40 0.30 1/10 5");
  EXPECT_FALSE(root.read("/proc/cmdline"));
  EXPECT_FALSE(root.read_int("/proc/loadavg")) << "not a single integer";
  EXPECT_TRUE(root.list_dir("/sys/class/power_supply").empty());
  EXPECT_EQ(root.files_read().count("/proc/loadavg"), 1u);
  EXPECT_EQ(root.dirs_listed().count("/sys/class/power_supply"), 1u);
  ScratchRoot out;
  sys::write_snapshot(root, out.dir());
  EXPECT_TRUE(std::filesystem::is_directory(out.dir() + "/sys/class/power_supply")) << "empty directories matter";
  EXPECT_EQ(sys::Sysroot(out.dir()).read("/proc/loadavg"), "0.50 0.40 0.30 1/10 5\n");
}

}  // namespace
}  // namespace nw::check::testing
