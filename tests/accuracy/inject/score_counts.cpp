// SPDX-License-Identifier: Apache-2.0
// migrations and blocking, whose ground truth is exact (moves made, sleeps asked for), and none,
// where nothing is injected.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tests/accuracy/inject/score.h"

namespace nw::inject {

namespace {

// blocking: blocking is the first row with share >= 0.60; in every injected run the probe's
// blocking is within 1 % of the sleep the benchmark was asked to take (timer slack and the
// wake-up are microseconds); in every clean run it is at most 1 % of the wall time.
constexpr double kBlockingShare = 0.60, kSleepTolerance = 0.01, kCleanBlockingFraction = 0.01;
// none: no source but unexplained with a share >= 0.20 (issue #12 section 6).
constexpr double kNoneMaxShare = 0.20;

}  // namespace

int score_migrations(const ScoreInput& in) {
  Scorecard card(in);
  common_rules(in, card, true, {"migration"});
  // Exact counts in every measured run: the record's migrations and the migration source's
  // count against the moves the injector made (0 in clean runs).
  int mismatches = 0;
  char buf[400];
  for (const auto& r : in.runs) {
    const auto& t = *r.truth;
    int moves = t.value("moves", 0), counted = int(r.run->migrations), noise = int(count_of(*r.run, "migration"));
    bool ok = counted == moves && noise == moves;
    mismatches += !ok;
    if (!ok && t.contains("kernel_nr_migrations_before_main"))
      card.note("run " + std::to_string(r.run->index) + ": the kernel counted " +
                std::to_string(t["kernel_nr_migrations_before_main"].get<uint64_t>()) +
                " migration(s) of this process before its main() started (the runner's own pinning)");
    if (!r.injected && ok) continue;
    std::string kernel =
        t.contains("kernel_nr_migrations_delta")
            ? "kernel se.nr_migrations +" + std::to_string(t["kernel_nr_migrations_delta"].get<long long>())
            : "no moves";
    std::snprintf(buf, sizeof buf, "run %d: moved %d times (%s); record migrations %d, migration count %d%s",
                  r.run->index, moves, kernel.c_str(), counted, noise, ok ? "" : "  MISMATCH");
    card.note(buf);
  }
  card.rule("truth: runs[].migrations and the migration count equal the moves made in every measured run (" +
                std::to_string(mismatches) + " mismatches)",
            mismatches == 0 && !in.runs.empty());
  card.note("the migration share is informational: a migration's cost is estimated by regression");
  return card.print("migration counts");
}

int score_blocking(const ScoreInput& in) {
  Scorecard card(in);
  // The injected blocking is a sleep: blocking:sleep where the record splits blocking by cause,
  // the total in records made before that.
  const bool by_cause = std::any_of(in.rec.attribution.begin(), in.rec.attribution.end(),
                                    [](const Attribution& a) { return a.source.rfind("blocking:", 0) == 0; });
  const std::string expected = by_cause ? "blocking:sleep" : "blocking";
  common_rules(in, card, true, {expected});
  const auto* top = in.top();
  char buf[400];
  std::snprintf(buf, sizeof buf, "rank: %s is the first row (first: %s), share %.3f >= %.2f", expected.c_str(),
                top ? top->source.c_str() : "-", in.share(expected), kBlockingShare);
  card.rule(buf, top && top->source == expected && top->share >= kBlockingShare);

  double worst_sleep = 0, worst_clean = 0;
  for (const auto& r : in.runs) {
    double blocking = double(r.run->blocking_ns) / 1e6;
    if (r.injected) {
      double asked = r.truth->value("sleep_us_requested", 0) / 1e3;
      double err = asked > 0 ? std::abs(blocking - asked) / asked : 1;
      worst_sleep = std::max(worst_sleep, err);
      std::snprintf(buf, sizeof buf, "run %d: told to sleep %.1f ms; probe blocking %.2f ms", r.run->index, asked,
                    blocking);
      card.note(buf);
    } else {
      worst_clean = std::max(worst_clean, r.run->wall_ns ? double(r.run->blocking_ns) / double(r.run->wall_ns) : 1);
    }
  }
  std::snprintf(buf, sizeof buf,
                "truth: blocking within %.0f %% of the requested sleep in every injected run (worst %.2f %%)",
                100 * kSleepTolerance, 100 * worst_sleep);
  card.rule(buf, !in.injected().empty() && worst_sleep <= kSleepTolerance);
  std::snprintf(buf, sizeof buf, "clean runs: blocking at most %.1f %% of the wall time (worst %.3f %%)",
                100 * kCleanBlockingFraction, 100 * worst_clean);
  card.rule(buf, worst_clean <= kCleanBlockingFraction);
  bool flagged = false;
  for (const auto& w : in.rec.warnings)
    if (w.find("blocking") != std::string::npos && w.find("not noise") != std::string::npos) flagged = true;
  card.rule("the report calls blocking the workload's own doing, not noise (a warning)", flagged);
  return card.print("blocking");
}

int score_none(const ScoreInput& in) {
  Scorecard card(in);
  common_rules(in, card, false, {});
  std::string large;
  double worst = 0;
  for (const auto& a : in.rec.attribution) {
    if (a.source == "unexplained") continue;
    worst = std::max(worst, a.share);
    if (a.share >= kNoneMaxShare) large += " " + a.source;
  }
  char buf[300];
  std::snprintf(buf, sizeof buf, "no source but unexplained with share >= %.2f (largest named %.3f)%s%s", kNoneMaxShare,
                worst, large.empty() ? "" : "; found:", large.c_str());
  card.rule(buf, large.empty());
  if (in.rec.report.is_object() && in.rec.report.contains("headline"))
    card.note("headline: " + in.rec.report["headline"].get<std::string>());
  return card.print("no named share >= 0.20");
}

}  // namespace nw::inject
