// SPDX-License-Identifier: Apache-2.0
// SourceDetail: the one mapping of a noise entry's detail to JSON. Round trips, foreign keys kept,
// wrong types left unread (never a crash on a hand-edited record), and the merge over runs.
#include <gtest/gtest.h>

#include "record/source_detail.h"

namespace nw {
namespace {

using nlohmann::json;

TEST(SourceDetail, RoundTripsEveryField) {
  SourceDetail d;
  d.cpus = {0, 1};
  d.per_cpu_ns = {10, 20};
  d.pid = 42;
  d.pids = {42, 43};
  d.irq = 24;
  d.cgroup_id = 7;
  d.paths = {{0, 1, 3}};
  d.timer_late = TimerLate{6, 300, 90};
  d.minor = 5;
  d.major = 1;
  d.reference_khz = 2.4e6;
  d.parts = json::array({{{"source", "blocking:sleep"}, {"time_ns", 5}}});
  json j = d.to_json();
  EXPECT_EQ(j["pid"], 42);
  EXPECT_EQ(j["paths"][0]["count"], 3);
  EXPECT_EQ(j["timer_late_ns"], 300);
  SourceDetail back = SourceDetail::from_json(j);
  EXPECT_EQ(back.cpus, d.cpus);
  EXPECT_EQ(back.per_cpu_ns, d.per_cpu_ns);
  EXPECT_EQ(back.pid, d.pid);
  EXPECT_EQ(back.pids, d.pids);
  EXPECT_EQ(back.irq, d.irq);
  EXPECT_EQ(back.cgroup_id, d.cgroup_id);
  EXPECT_EQ(back.paths, d.paths);
  EXPECT_EQ(back.timer_late, d.timer_late);
  EXPECT_EQ(back.minor, d.minor);
  EXPECT_EQ(back.major, d.major);
  EXPECT_EQ(back.reference_khz, d.reference_khz);
  EXPECT_EQ(back.parts, d.parts);
  EXPECT_EQ(back.to_json(), j);
}

TEST(SourceDetail, FromIsACpuForAMigrationAndAnOriginForSteal) {
  auto migration = SourceDetail::from_json({{"from", 2}, {"to", 3}});
  EXPECT_EQ(migration.from, 2);
  EXPECT_EQ(migration.to, 3);
  EXPECT_TRUE(migration.origin.empty());
  auto steal = SourceDetail::from_json({{"from", "/proc/stat"}});
  EXPECT_FALSE(steal.from);
  EXPECT_EQ(steal.origin, "/proc/stat");
  EXPECT_EQ(steal.to_json(), json({{"from", "/proc/stat"}}));
}

TEST(SourceDetail, KeepsUnknownKeysAndLeavesWrongTypesUnread) {
  json j = {{"pids", "not a list"}, {"irq", "24"}, {"newer_field", {1, 2}}, {"pid", -1}};
  auto d = SourceDetail::from_json(j);
  EXPECT_TRUE(d.pids.empty());
  EXPECT_FALSE(d.irq);
  EXPECT_EQ(d.pid, -1);
  EXPECT_EQ(d.to_json(), j);  // nothing lost on a re-render
  EXPECT_EQ(SourceDetail::from_json(nullptr).to_json(), json::object());
  EXPECT_EQ(SourceDetail::from_json(json::array({1})).to_json(), json::object());
}

TEST(SourceDetail, MergeOverRunsCollectsPidsAndDropsOneRunsPaths) {
  SourceDetail over;
  over.merge_run(SourceDetail::from_json({{"pid", 10}, {"cpus", {1}}, {"irq", 5}}));
  over.merge_run(SourceDetail::from_json({{"pid", 20}, {"pids", {20, 21}}, {"cpus", {0}}, {"irq", 6}}));
  over.merge_run(
      SourceDetail::from_json({{"from", 0}, {"to", 1}, {"paths", {{{"from", 0}, {"to", 1}, {"count", 2}}}}}));
  EXPECT_EQ(over.pid, 10);
  EXPECT_EQ(over.pids, (std::vector<int64_t>{10, 20, 21}));
  EXPECT_EQ(over.cpus, std::vector<int>{1});  // the first run's
  EXPECT_EQ(over.irq, 5);
  EXPECT_FALSE(over.from);
  EXPECT_TRUE(over.paths.empty());
}

}  // namespace
}  // namespace nw
