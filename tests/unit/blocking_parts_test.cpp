// SPDX-License-Identifier: Apache-2.0
// Blocking by cause (issue #24 section 2) without a kernel: the vocabulary of the parts, the
// runner folding them into the total's detail, the analyses reading them back (summing to the
// total whatever the record holds), and the report's wording and advice by cause.
#include <gtest/gtest.h>

#include <numeric>

#include "report_synthetic.h"
#include "runner/noise_merge.h"
#include "sources/vocabulary.h"

namespace nw {
namespace {

using probes::NoiseEvent;
using sources::BlockingPart;

TEST(BlockingParts, VocabularyNamesEachCause) {
  EXPECT_EQ(sources::blocking_io("virtio1-req.0"), "blocking:io:virtio1-req.0");
  EXPECT_EQ(sources::blocking_wait("postgres"), "blocking:wait:postgres");
  EXPECT_EQ(sources::blocking_part(sources::parse("blocking")), BlockingPart::none);
  EXPECT_EQ(sources::blocking_part(sources::parse("blocking:sleep")), BlockingPart::sleep);
  EXPECT_EQ(sources::blocking_part(sources::parse("blocking:io:virtio1-req.0")), BlockingPart::io);
  EXPECT_EQ(sources::blocking_part(sources::parse("blocking:wait:kworker/1:2")), BlockingPart::wait);
  EXPECT_EQ(sources::blocking_part(sources::parse("blocking:other")), BlockingPart::other);
  EXPECT_EQ(sources::blocking_part(sources::parse("irq:sleep")), BlockingPart::none);
  EXPECT_EQ(sources::blocking_party(sources::parse("blocking:wait:kworker/1:2")), "kworker/1:2");
  EXPECT_EQ(sources::blocking_party(sources::parse("blocking:io:nvme0q1")), "nvme0q1");
  // The parts are the workload's own, like the total: never stolen time.
  for (const char* s : {"blocking:sleep", "blocking:io:nvme0q1", "blocking:wait:postgres", "blocking:other"}) {
    EXPECT_EQ(sources::group_of(sources::parse(s), "bench"), sources::Group::workload) << s;
    EXPECT_FALSE(sources::is_stolen(sources::parse(s), "bench")) << s;
  }
  EXPECT_EQ(sources::describe("blocking:wait:postgres"), "the benchmark waiting on postgres");
  EXPECT_EQ(sources::describe("blocking:io:nvme0q1"), "the benchmark's own I/O, completed by nvme0q1");
}

TEST(BlockingParts, RunnerFoldsThePartsIntoTheTotal) {
  std::vector<NoiseEvent> ev = {
      {"blocking", 1, 10, 9000, 2000, nullptr},
      {"blocking:sleep", 1, 6, 6000, 2000, nullptr},
      {"blocking:sleep", 1, 6, 300, 90, {{"timer_late", true}}},
      {"blocking:wait:nw_server", 1, 4, 3000, 900, {{"pid", 77}}},
      {"irq:local_timer", 1, 3, 100, 40, nullptr},
  };
  auto m = runner::merge_noise(ev);
  ASSERT_EQ(m.size(), 2u) << "the parts are not entries of their own";
  EXPECT_EQ(m[0].source, "blocking");
  const auto& parts = m[0].detail["parts"];
  ASSERT_EQ(parts.size(), 2u);
  uint64_t sum = 0;
  for (const auto& p : parts) sum += p["time_ns"].get<uint64_t>();
  EXPECT_EQ(sum, m[0].time_ns);
  // The timers' lateness is the sleeps' evidence, not a part of their time.
  const auto& sleep = parts[0]["source"] == "blocking:sleep" ? parts[0] : parts[1];
  EXPECT_EQ(sleep["time_ns"], 6000);
  EXPECT_EQ(sleep["detail"]["timer_late_count"], 6);
  EXPECT_EQ(sleep["detail"]["timer_late_ns"], 300);
  EXPECT_EQ(sleep["detail"]["timer_late_max_ns"], 90);
}

RunSample with_parts(uint64_t total, const nlohmann::json& parts) {
  RunSample r;
  r.blocking_ns = total;
  r.noise.push_back({"blocking", 3, total, total, {{"parts", parts}}});
  return r;
}

uint64_t blocking_time(const std::vector<NoiseEntry>& n) {
  uint64_t t = 0;
  for (const auto& e : n)
    if (sources::parse(e.source).category == sources::kBlocking) t += e.time_ns;
  return t;
}

TEST(BlockingParts, AnalysesSeeThePartsSummingToTheTotal) {
  auto r = with_parts(1000, {{{"source", "blocking:sleep"}, {"count", 2}, {"time_ns", 700}},
                             {{"source", "blocking:io:nvme0q1"}, {"count", 1}, {"time_ns", 300}}});
  auto n = r.all_noise();
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[0].source, "blocking:sleep");
  EXPECT_EQ(blocking_time(n), 1000u);
  // A record whose parts fall short (edited, or a newer probe's unknown part dropped) keeps its
  // total: the rest is blocking:other. Parts that would exceed the total are left out.
  auto short_parts = with_parts(1000, {{{"source", "blocking:sleep"}, {"time_ns", 600}},
                                       {{"source", "irq:bogus"}, {"time_ns", 100}},
                                       {{"source", "blocking:io:x"}, {"time_ns", 900}}});
  auto s = short_parts.all_noise();
  EXPECT_EQ(blocking_time(s), 1000u);
  EXPECT_TRUE(std::any_of(s.begin(), s.end(),
                          [](const NoiseEntry& e) { return e.source == "blocking:other" && e.time_ns == 400; }));
  // Without parts (older records) the total stays as it was.
  RunSample old;
  old.noise.push_back({"blocking", 1, 500, 500, nullptr});
  ASSERT_EQ(old.all_noise().size(), 1u);
  EXPECT_EQ(old.all_noise()[0].source, "blocking");
  // Blocking is never stolen time, in parts or whole.
  EXPECT_EQ(r.stolen_ns(), 0u);
}

// Runs whose sleeps vary: the attribution names blocking:sleep (not the total), the warning says
// "sleeps", and the advice is the timer slack, not tmpfs.
RunRecord sleeper_record() {
  return test::analyzed(test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, std::mt19937_64&) {
    uint64_t sleep = uint64_t(200e6 + (i % 4) * 3e6), io = 1'000'000;
    r.blocking_ns = sleep + io;
    r.noise.push_back({"blocking",
                       200,
                       sleep + io,
                       2'000'000,
                       {{"parts",
                         {{{"source", "blocking:sleep"}, {"count", 199}, {"time_ns", sleep}},
                          {{"source", "blocking:io:nvme0q1"}, {"count", 1}, {"time_ns", io}}}}}});
    r.noise.push_back(test::time_entry("irq:local_timer", 250e3, 250));
  }));
}

TEST(BlockingParts, ReportAttributesAndAdvisesByCause) {
  auto rec = sleeper_record();
  EXPECT_GT(test::row(rec, "blocking:sleep").share, 0.5);
  EXPECT_THROW(test::row(rec, "blocking"), std::runtime_error) << "the total is not attributed beside its parts";
  const auto* slack = test::find_rec(rec, "timer-slack");
  ASSERT_NE(slack, nullptr);
  EXPECT_NE(std::find(slack->commands.begin(), slack->commands.end(), "noisewatch --timer-slack 1 -- ./bench"),
            slack->commands.end());
  EXPECT_EQ(test::find_rec(rec, "workload-io"), nullptr) << "no tmpfs advice for a benchmark that sleeps";
  bool said = std::any_of(rec.warnings.begin(), rec.warnings.end(), [](const std::string& w) {
    return w.find("own blocking (the benchmark's own sleeps and timeouts") != std::string::npos;
  });
  EXPECT_TRUE(said) << "the warning names the cause";
}

TEST(BlockingParts, AWaitNamesItsParty) {
  auto rec = test::analyzed(test::synthetic_record(20, 0.2e6, [](int i, RunSample& r, std::mt19937_64&) {
    uint64_t wait = uint64_t(50e6 + (i % 4) * 3e6);
    r.blocking_ns = wait;
    r.noise.push_back(
        {"blocking",
         100,
         wait,
         900000,
         {{"parts",
           {{{"source", "blocking:wait:postgres"}, {"count", 100}, {"time_ns", wait}, {"detail", {{"pid", 812}}}}}}}});
  }));
  const auto* w = test::find_rec(rec, "workload-wait:postgres");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->title.find("postgres (pid 812)"), std::string::npos) << w->title;
  EXPECT_EQ(test::find_rec(rec, "workload-io"), nullptr);
  EXPECT_EQ(test::find_rec(rec, "timer-slack"), nullptr);
}

}  // namespace
}  // namespace nw
