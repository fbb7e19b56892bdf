// SPDX-License-Identifier: Apache-2.0
// Named shapes of the run distribution: bimodal, drift, outliers, slow first run, stability.
#include <gtest/gtest.h>

#include "report_synthetic.h"
#include "reports/patterns.h"
#include "reports/report.h"
#include "reports/source_matrix.h"

namespace nw {
namespace {

report::Patterns patterns_of(const RunRecord& rec) { return report::detect_patterns(report::collect_sources(rec)); }

bool has_recommendation(const RunRecord& rec, const std::string& id) {
  for (const auto& r : rec.recommendations)
    if (r.id == id) return true;
  return false;
}

TEST(ReportPatterns, BimodalNamesTheSourceOfTheGap) {
  auto rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    if (i % 2 == 0) r.noise.push_back(test::time_entry("preemption:stress-ng", 30e6));
  });
  auto p = patterns_of(rec);
  ASSERT_TRUE(p.bimodal.found);
  EXPECT_EQ(p.bimodal.slow_runs.size(), 10u);
  EXPECT_EQ(p.bimodal.source, "preemption:stress-ng");
  EXPECT_NEAR(p.bimodal.source_fraction, 1.0, 0.1);
  EXPECT_NEAR(p.bimodal.slow_mean_ns - p.bimodal.fast_mean_ns, 30e6, 2e6);
}

TEST(ReportPatterns, UnimodalSamplesAreNotCalledBimodal) {
  int false_alarms = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed)
    false_alarms += patterns_of(test::synthetic_record(20, 5e6, nullptr, seed)).bimodal.found;
  EXPECT_EQ(false_alarms, 0);
}

TEST(ReportPatterns, DriftIsDetectedAndLinkedToFrequency) {
  // Thermal throttling: the frequency falls 0.2 % per run, the time rises accordingly.
  auto rec = test::synthetic_record(20, 0.3e6, [](int i, RunSample& r, auto&) {
    double khz = 3.0e6 * (1 - 0.002 * i);
    r.mean_khz = khz;
    r.wall_ns = uint64_t(1e9 * (3.0e6 / khz - 1));
  });
  auto p = patterns_of(rec);
  ASSERT_TRUE(p.drift.found);
  EXPECT_GT(p.drift.slope_ns_per_run, 0);
  EXPECT_NEAR(p.drift.total_fraction, 0.039, 0.01);
  EXPECT_EQ(p.drift.source, "frequency");
  EXPECT_TRUE(p.drift.frequency_falling);
}

TEST(ReportPatterns, StationaryRunsDoNotDrift) {
  int false_alarms = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed)
    false_alarms += patterns_of(test::synthetic_record(20, 5e6, nullptr, seed)).drift.found;
  EXPECT_LE(false_alarms, 1);  // p < 0.01 per test: at most a rare false alarm in 30
}

TEST(ReportPatterns, AlternatingRunsAreNotDrift) {
  auto rec = test::synthetic_record(20, 1e6, [](int i, RunSample& r, auto&) {
    if (i % 2) r.noise.push_back(test::time_entry("preemption:hog", 20e6));
  });
  EXPECT_FALSE(patterns_of(rec).drift.found);
}

TEST(ReportPatterns, OutlierByModifiedZScore) {
  auto rec = test::synthetic_record(15, 1e6, [](int i, RunSample& r, auto&) {
    if (i == 7) r.noise.push_back(test::time_entry("irq:nvme0q1", 40e6));
  });
  auto p = patterns_of(rec);
  ASSERT_EQ(p.outliers.size(), 1u);
  EXPECT_EQ(p.outliers[0].run, 8);  // index 0 is the warm-up
  EXPECT_GT(p.outliers[0].z, report::kOutlierZ);
  EXPECT_EQ(p.outliers[0].source, "irq:nvme0q1");
  rec = test::analyzed(rec);
  bool warned = false;
  for (const auto& w : rec.warnings) warned |= w.find("Run 8 is an outlier") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ReportPatterns, SlowFirstRunAsksForWarmup) {
  auto rec = test::synthetic_record(10, 0.5e6, [](int i, RunSample& r, auto&) {
    if (i == 0) r.wall_ns = uint64_t(80e6);  // cold caches: invisible to the probes
  });
  auto p = patterns_of(rec);
  EXPECT_TRUE(p.slow_first.found);
  EXPECT_NEAR(p.slow_first.excess, 0.08, 0.01);
  rec = test::analyzed(rec);
  EXPECT_TRUE(has_recommendation(rec, "more-warmup"));
}

TEST(ReportPatterns, StabilityLevelsAndRunsNeeded) {
  auto stable = patterns_of(test::synthetic_record(10, 1e6, nullptr));
  EXPECT_EQ(stable.stability, "stable");
  auto noisy = patterns_of(test::synthetic_record(10, 30e6, nullptr));
  EXPECT_EQ(noisy.stability, "moderate");
  // With CV ~3 %, +-1 % at 95 % needs about (1.96 * 3)^2 ~ 35 runs; 10 are too few.
  EXPECT_GT(noisy.runs_needed, 20);
  EXPECT_LT(noisy.runs_needed, 60);
  EXPECT_GT(noisy.ci_half_width, report::kTargetPrecision);
  auto wild = patterns_of(test::synthetic_record(10, 80e6, nullptr));
  EXPECT_EQ(wild.stability, "unstable");
}

// The runs asked for follow from the same statistics as the half-width quoted beside them: a
// run set whose mean is not known to the target precision always needs more runs than it has
// (once: "with 10 runs the mean is known to +-1.1 %; about 9 runs would give +-1 %"), and one
// that is, never more.
TEST(ReportPatterns, RunsNeededAgreesWithTheHalfWidth) {
  int above = 0, within = 0;
  for (int runs : {3, 5, 10, 20}) {
    for (double spread = 2e6; spread <= 60e6; spread *= 1.15) {
      auto p = patterns_of(test::synthetic_record(runs, spread, nullptr));
      if (p.ci_half_width > report::kTargetPrecision) {
        ++above;
        EXPECT_GT(p.runs_needed, runs) << "spread " << spread << ", half-width " << p.ci_half_width;
      } else {
        ++within;
        EXPECT_LE(p.runs_needed, std::max(runs, 5)) << "spread " << spread << ", half-width " << p.ci_half_width;
      }
    }
  }
  EXPECT_GT(above, 0);
  EXPECT_GT(within, 0);
}

// The account of a run on one CPU: own CPU time + blocking + charged sources, and what is left.
// A quota that nothing charged leaves 60 % of each run unaccounted, and the report says so; the
// same runs with the throttling charged close the account, and the warning goes.
TEST(ReportPatterns, UnaccountedWallTimeIsWarnedOnOneCpu) {
  auto run_with = [](bool charged) {
    return test::synthetic_record(10, 1e6, [charged](int, RunSample& r, auto&) {
      r.cpu_ns = r.user_ns;  // the probe measured the CPU time
      r.cpu_irq_ns = 0;
      if (charged) r.noise.push_back(test::time_entry("throttle:/q", 1.5e9));
      else r.wall_ns = uint64_t(1.5e9);  // taken, but by nothing any probe saw
    });
  };
  auto warned = [](const RunRecord& rec) {
    for (const auto& w : rec.warnings)
      if (w.find("accounted for by nothing measured") != std::string::npos) return true;
    return false;
  };
  auto blind = test::analyzed(run_with(false));
  ASSERT_TRUE(blind.samples[1].unaccounted_ns().has_value());
  EXPECT_NEAR(double(*blind.samples[1].unaccounted_ns()) / double(blind.samples[1].wall_ns), 0.6, 0.01);
  EXPECT_TRUE(warned(blind));
  auto seen = test::analyzed(run_with(true));
  EXPECT_EQ(*seen.samples[1].unaccounted_ns(), 0u);
  EXPECT_EQ(*seen.samples[1].accounted_ns(), seen.samples[1].wall_ns);
  EXPECT_FALSE(warned(seen));
  // The record carries both figures; a run without measured CPU time (a window) has neither.
  auto j = to_json(seen)["runs"][1];
  EXPECT_EQ(j["accounted_ns"], j["wall_ns"]);
  EXPECT_EQ(j["unaccounted_ns"], 0);
  RunSample window;
  window.wall_ns = 5;
  EXPECT_FALSE(window.accounted_ns().has_value());
}

TEST(ReportPatterns, MannKendallAndTheilSen) {
  std::vector<double> rising = {1, 2, 3, 4, 5, 6, 7, 8};
  auto [p, sign] = report::mann_kendall(rising);
  EXPECT_LT(p, 0.001);
  EXPECT_EQ(sign, 1);
  EXPECT_DOUBLE_EQ(report::theil_sen_slope(rising), 1.0);
  std::vector<double> flat = {5, 5, 5, 5, 5};
  EXPECT_EQ(report::mann_kendall(flat).first, 1.0);
}

}  // namespace
}  // namespace nw
