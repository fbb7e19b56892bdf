// SPDX-License-Identifier: Apache-2.0
// The format-neutral result of `noisewatch compare`: everything the renderers print, nothing more.
// Renderers (render_text/json/markdown.cpp) are pure functions of this model.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw::compare {

// inconclusive: fewer than 2 runs on a side, so no test is possible (the ratio is still shown).
enum class Verdict { slower, faster, no_change, inconclusive };
std::string_view verdict_name(Verdict v);  // "slower" | "faster" | "no-change" | "inconclusive" (JSON contract)

// Timing comparison of two samples of repetition times.
struct TimingResult {
  Verdict verdict = Verdict::no_change;
  double ratio = 1;                // NEW/BASE of the medians (the JSON contract's "ratio")
  double ci_low = 1, ci_high = 1;  // Hodges-Lehmann (Moses) interval of the ratio
  bool ci_bounded = false;         // false: no (1 - alpha) interval exists (too few runs); ci is null
  double hl_ratio = 1;             // Hodges-Lehmann point estimate of the ratio
  bool tested = false;             // at least 2 runs per side, so a test was run
  double p_value = 1;              // two-sided Mann-Whitney U (meaningless unless tested)
  bool exact = false;              // p from the exact distribution, else the normal approximation
  double p_adjusted = 1;           // Holm-adjusted across the comparison's benchmarks
  bool significant = false;        // p_adjusted < alpha
  // The interval lies inside (1 / (1 + threshold), 1 + threshold): no change is *shown*, not
  // merely not found (a no-change verdict without it only failed to find a difference).
  bool equivalent = false;
  double change_percent() const { return (ratio - 1) * 100; }
};

struct Options {
  double threshold_percent = 1.0;            // changes inside +-threshold are "no-change"
  double alpha = 0.05;                       // significance level of every test; CI level 1 - alpha
  std::optional<double> fail_above_percent;  // exit 1 when significantly slower by more than this
  // Live compare: the wall-time result is this (its sequential decision, untested: no p-value),
  // not a Mann-Whitney test of samples whose size was not fixed in advance.
  std::optional<TimingResult> sequential;
};

// CPU time (user + system) compared like wall time, where the inputs carry it.
struct CpuComparison {
  std::string basis;        // what was compared: "cpu_time", "user+sys", "user+system means"
  TimingResult timing;      // untested (inconclusive) when only means are known (hyperfine)
  bool means_only = false;  // a ratio of means: the input keeps no per-run CPU time
  bool disagrees = false;   // points another way than wall time: worth a line in the text
};

struct SampleSummary {
  size_t runs = 0;
  double median_ns = 0, mean_ns = 0, cv = 0;
};

// One noise source: mean stolen time per measured run on each side, and whether it changed.
struct NoiseChange {
  std::string source;
  double base_mean_ns = 0, new_mean_ns = 0;
  double change_ns = 0;      // new - base
  double change_points = 0;  // change_ns as percentage points of BASE's median wall time
  double base_mean_count = 0, new_mean_count = 0;
  double p_value = 1;        // Mann-Whitney on the per-run times (counts for count-only sources)
  bool significant = false;  // after Holm correction across all sources of the benchmark
  bool stolen = true;        // sources::is_stolen: false for the workload's own (blocking, contention, faults)
};

struct BenchmarkComparison {
  std::string name;
  SampleSummary base, next;  // `next` is NEW (`new` is a keyword)
  TimingResult timing;
  std::optional<CpuComparison> cpu;
  bool few_runs = false;                 // fewer than kFewRuns repetitions on a side
  std::string rerun_hint;                // "--benchmark_repetitions=20": more runs, in the input tool's terms
  bool has_noise = false;                // both sides are noisewatch reports
  std::vector<NoiseChange> noise_diff;   // by decreasing |change|
  double noise_explained_points = 0;     // material noise changes in the direction of the timing change
  std::optional<TimingResult> adjusted;  // wall time minus stolen time per run, compared the same way
  std::vector<int> base_cpus, new_cpus;
  std::string explanation;  // the verdict sentence
  bool fail_above_exceeded = false;
  bool fail_above_untested = false;  // the gate judged the ratio alone: no test was possible
};

struct HostDifference {
  std::string field, base, next;
};

struct Summary {
  size_t benchmarks = 0, slower = 0, faster = 0, no_change = 0, inconclusive = 0;
  double geomean_ratio = 1;  // geometric mean of every benchmark's NEW/BASE
  size_t tested = 0;         // benchmarks with a test: the size of the Holm family
  size_t exact = 0;          // of those, tested with the exact distribution
};

// Live compare (`compare -- A ::: B`, src/runner/live_compare.h): the sequential decision on the pairs.
struct SequentialDecision {
  std::string outcome = "undecided";  // "different" | "same" | "undecided" (stats::outcome_name)
  size_t pairs = 0;                   // complete pairs it was taken on
  double ratio = 1;                   // B/A: exp of the median of the pairs' log(B/A)
  double low = 0, high = 0;           // the confidence sequence's bounds of that ratio; 0 / +inf: unbounded
};

// A run one source disturbed far beyond what the quietest quarter of the runs saw of it.
struct DisturbedRun {
  int pair = 0;
  std::string side;  // "A" | "B"
  std::string source;
  double time_ns = 0;     // that source's time in the run
  double typical_ns = 0;  // its lower quartile over every measured run of both sides
};

// What stood in the way of a decision: a source's share of both sides' run-to-run variance, and
// the advice that would remove it.
struct Obstacle {
  std::string source;
  double share = 0;   // of Var(A) + Var(B), from each side's attribution
  std::string sides;  // "A", "B" or "both sides"
  std::string fix;    // the first command of the report's advice for it ("" when none)
};

struct LiveComparison {
  std::vector<std::string> a_command, b_command;
  size_t max_pairs = 0;
  SequentialDecision decision;
  std::vector<DisturbedRun> disturbed;
  std::optional<SequentialDecision> undisturbed;  // the pairs without a disturbed run, when any was
  std::vector<Obstacle> obstacles;                // when undecided
  std::string failure;                            // a command failed: which, and how ("" when none)
};

struct Comparison {
  std::string base_label, new_label;
  std::string base_format, new_format;
  Options options;
  std::vector<BenchmarkComparison> benchmarks;  // in BASE's order; never empty
  Summary summary;
  size_t headline = 0;  // the benchmark the top-level verdict is about
  std::vector<HostDifference> host_diff;
  std::vector<std::string> warnings;
  std::optional<LiveComparison> live;  // compare -- A ::: B

  const BenchmarkComparison& top() const { return benchmarks.at(headline); }
  bool fail_above_exceeded() const;
  bool fail_above_untested() const;  // some benchmark exceeded the gate on its ratio alone
};

// The anchors (google/benchmark, pyperf) warn below this many repetitions.
inline constexpr size_t kFewRuns = 9;
// Below this many runs on a side no test is possible: the verdict is inconclusive.
inline constexpr size_t kMinTestRuns = 2;

}  // namespace nw::compare
