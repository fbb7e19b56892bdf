// SPDX-License-Identifier: Apache-2.0
// Leads (reports/neighbours.h): a neighbour busy on another CPU in the slow runs is named as the
// likely cause of the unexplained time, with its correlation and advice; one that does not
// follow the slow runs, or too few runs, names nobody. A lead never changes the attribution.
#include <gtest/gtest.h>

#include <algorithm>

#include "report_synthetic.h"
#include "reports/advice.h"
#include "reports/neighbours.h"

namespace nw::report {
namespace {

using test::analyzed;
using test::synthetic_record;

// `runs` runs of a 1 s benchmark; the odd ones are 30 ms slower for a reason no probe sees.
// `busy(i)` says whether the neighbour nw_stream (pid 4242, CPU 0) ran in run i; two quiet
// daemons and a backup that takes 0-20 % of a CPU at random are among the busiest of every run.
RunRecord neighbour_record(int runs, const std::function<bool(int)>& busy) {
  return synthetic_record(runs, 0.3e6, [&](int i, RunSample& r, std::mt19937_64& rng) {
    if (i % 2 == 1) r.wall_ns = uint64_t(30e6);  // unseen cost
    std::vector<Neighbour> n;
    if (busy(i)) n.push_back({4242, "nw_stream", uint64_t(0.9e9), 0});
    n.push_back({1, "systemd", std::uniform_int_distribution<uint64_t>(1'000'000, 3'000'000)(rng), 0});
    n.push_back({812, "sshd", std::uniform_int_distribution<uint64_t>(200'000, 900'000)(rng), 0});
    n.push_back({913, "backup", std::uniform_int_distribution<uint64_t>(0, 200'000'000)(rng), 0});
    r.neighbours = std::move(n);
  });
}

bool warned(const RunRecord& rec, const std::string& what) {
  return std::any_of(rec.warnings.begin(), rec.warnings.end(),
                     [&](const std::string& w) { return w.find(what) != std::string::npos; });
}

TEST(ReportNeighbours, NeighbourBusyInTheSlowRunsIsNamed) {
  auto rec = analyzed(neighbour_record(12, [](int i) { return i % 2 == 1; }));
  const auto& leads = rec.report["leads"];
  ASSERT_EQ(leads.size(), 1u) << leads.dump();
  EXPECT_EQ(leads[0]["kind"], "neighbour");
  EXPECT_EQ(leads[0]["comm"], "nw_stream");
  EXPECT_EQ(leads[0]["pid"], 4242);
  EXPECT_EQ(leads[0]["cpu"], 0);
  EXPECT_GT(leads[0]["correlation"].get<double>(), 0.9);
  EXPECT_LT(leads[0]["p_adjusted"].get<double>(), kLeadAlpha);
  EXPECT_EQ(leads[0]["runs_seen"], 6);
  EXPECT_EQ(leads[0]["runs"], 12);
  EXPECT_EQ(leads[0]["tested"], 2);  // nw_stream and the backup; the daemons' share barely varies
  EXPECT_TRUE(warned(rec, "Likely cause of the unexplained time: nw_stream (pid 4242, CPU 0)"));
  // The headline names it where it would otherwise say only "unexplained".
  EXPECT_NE(rec.report["headline"].get<std::string>().find("likely nw_stream (pid 4242, CPU 0)"), std::string::npos)
      << rec.report["headline"];
  // Advice: stop it; it may reduce the unexplained part (a lead, so "up to" its share).
  const Recommendation* stop = test::find_rec(rec, "stop-process:nw_stream");
  ASSERT_NE(stop, nullptr);
  EXPECT_EQ(stop->addresses, std::vector<std::string>{"unexplained"});
  EXPECT_EQ(tier_of(*stop), Tier::speculative);
  EXPECT_NEAR(stop->share, test::row(rec, "unexplained").share, 1e-12);
  EXPECT_NE(stop->title.find("pid 4242"), std::string::npos);
}

TEST(ReportNeighbours, OnAVmTheHostIsNotTheOnlyExplanation) {
  auto raw = neighbour_record(12, [](int i) { return i % 2 == 1; });
  raw.host.virtualized = true;
  auto rec = analyzed(raw);
  const std::string headline = rec.report["headline"];
  EXPECT_NE(headline.find("likely nw_stream"), std::string::npos) << headline;
  EXPECT_EQ(headline.find("most likely the host"), std::string::npos) << headline;
  // The account of each run misses a fifth of its wall time: the warning names the host and the
  // neighbour.
  for (auto& r : raw.samples) {
    r.cpu_ns = r.user_ns * 8 / 10;
    r.cpu_irq_ns = 0;
  }
  auto short_account = analyzed(raw);
  EXPECT_TRUE(warned(short_account,
                     "most likely the host (a vCPU descheduled without steal being reported), or "
                     "nw_stream (pid 4242, CPU 0), which is busy in the slow runs"));
}

TEST(ReportNeighbours, NeighbourNotFollowingTheSlowRunsIsNotNamed) {
  // Busy in runs 0, 1, 4, 5, 8, 9: half of them slow, half fast (r = 0).
  auto rec = analyzed(neighbour_record(12, [](int i) { return i % 4 < 2; }));
  EXPECT_TRUE(rec.report["leads"].empty()) << rec.report["leads"].dump();
  EXPECT_FALSE(warned(rec, "Likely cause"));
  EXPECT_EQ(test::find_rec(rec, "stop-process:nw_stream"), nullptr);
  EXPECT_EQ(rec.report["headline"].get<std::string>().find("nw_stream"), std::string::npos);
}

TEST(ReportNeighbours, TooFewRunsNameNobody) {
  auto rec = analyzed(neighbour_record(int(kMinRunsForLead) - 1, [](int i) { return i % 2 == 1; }));
  EXPECT_TRUE(rec.report["leads"].empty());
  EXPECT_FALSE(warned(rec, "Likely cause"));
}

TEST(ReportNeighbours, NeighbourBusyThroughoutIsNotNamed) {
  // Busy for the whole of every run: its CPU time follows the run time, its share does not vary.
  auto raw = neighbour_record(12, [](int) { return false; });
  for (auto& r : raw.samples)
    if (r.neighbours) r.neighbours->insert(r.neighbours->begin(), {4242, "nw_stream", r.wall_ns - 20'000, 0});
  auto rec = analyzed(raw);
  EXPECT_TRUE(rec.report["leads"].empty()) << rec.report["leads"].dump();
}

TEST(ReportNeighbours, RecordsWithoutNeighboursNameNobody) {
  auto raw = neighbour_record(12, [](int i) { return i % 2 == 1; });
  raw.samples[3].neighbours.reset();  // one run not measured: no series to correlate
  EXPECT_TRUE(analyzed(raw).report["leads"].empty());
}

TEST(ReportNeighbours, ALeadChargesNoTimeAndTakesNoShare) {
  auto with = neighbour_record(12, [](int i) { return i % 2 == 1; });
  auto without = with;
  for (auto& r : without.samples) r.neighbours.reset();
  auto a = analyzed(with), b = analyzed(without);
  ASSERT_EQ(a.attribution.size(), b.attribution.size());
  for (size_t k = 0; k < a.attribution.size(); ++k) {
    EXPECT_EQ(a.attribution[k].source, b.attribution[k].source);
    EXPECT_DOUBLE_EQ(a.attribution[k].share, b.attribution[k].share);
    EXPECT_DOUBLE_EQ(a.attribution[k].mean_time_ns, b.attribution[k].mean_time_ns);
  }
  for (const auto& row : a.attribution) EXPECT_EQ(row.source.find("nw_stream"), std::string::npos);
}

TEST(ReportNeighbours, NeighboursRoundTripThroughTheRecord) {
  auto rec = neighbour_record(6, [](int i) { return i == 2; });
  auto j = to_json(rec);
  ASSERT_TRUE(j["runs"][3].contains("neighbours"));
  EXPECT_EQ(j["runs"][3]["neighbours"][0],
            (nlohmann::json{{"pid", 4242}, {"comm", "nw_stream"}, {"cpu_ns", 900000000}, {"cpu", 0}}));
  auto back = run_record_from_json(j);
  ASSERT_TRUE(back.samples[3].neighbours.has_value());
  EXPECT_EQ((*back.samples[3].neighbours)[0].comm, "nw_stream");
  EXPECT_EQ((*back.samples[3].neighbours)[0].cpu_ns, 900'000'000u);
  // Older records have none, and say nothing about neighbours.
  j["runs"][3].erase("neighbours");
  EXPECT_FALSE(run_record_from_json(j).samples[3].neighbours.has_value());
  j["runs"][3]["neighbours"] = 5;
  EXPECT_THROW(run_record_from_json(j), std::runtime_error);
}

}  // namespace
}  // namespace nw::report
