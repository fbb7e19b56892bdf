// The format-neutral result of `noisewatch compare`: everything the renderers print, nothing more.
// Renderers (render_text/json/markdown.cpp) are pure functions of this model.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nw::compare {

enum class Verdict { slower, faster, no_change };
std::string_view verdict_name(Verdict v);  // "slower" | "faster" | "no-change" (JSON contract)

struct Options {
  double threshold_percent = 1.0;           // changes inside +-threshold are "no-change"
  double alpha = 0.05;                      // significance level of every test; CI level 1 - alpha
  std::optional<double> fail_above_percent; // exit 1 when significantly slower by more than this
};

// Timing comparison of two samples of repetition times.
struct TimingResult {
  Verdict verdict = Verdict::no_change;
  double ratio = 1;                    // NEW/BASE of the medians (the JSON contract's "ratio")
  double ci_low = 1, ci_high = 1;      // Hodges-Lehmann (Moses) interval of the ratio
  bool ci_bounded = true;              // false: too few runs for a (1 - alpha) interval
  double hl_ratio = 1;                 // Hodges-Lehmann point estimate of the ratio
  double p_value = 1;                  // two-sided Mann-Whitney U
  bool significant = false;            // p < alpha
  double change_percent() const { return (ratio - 1) * 100; }
};

struct SampleSummary {
  size_t runs = 0;
  double median_ns = 0, mean_ns = 0, cv = 0;
};

// One noise source: mean stolen time per measured run on each side, and whether it changed.
struct NoiseChange {
  std::string source;
  double base_mean_ns = 0, new_mean_ns = 0;
  double change_ns = 0;          // new - base
  double change_points = 0;      // change_ns as percentage points of BASE's median wall time
  double base_mean_count = 0, new_mean_count = 0;
  double p_value = 1;            // Mann-Whitney on the per-run times (counts for count-only sources)
  bool significant = false;      // after Holm correction across all sources of the benchmark
  bool stolen = true;            // false for "blocking" (chosen off-CPU time) and "unexplained"
};

struct BenchmarkComparison {
  std::string name;
  SampleSummary base, next;      // `next` is NEW (`new` is a keyword)
  TimingResult timing;
  bool few_runs = false;         // fewer than kFewRuns repetitions on a side
  bool has_noise = false;        // both sides are noisewatch reports
  std::vector<NoiseChange> noise_diff;  // by decreasing |change|
  double noise_explained_points = 0;    // material noise changes in the direction of the timing change
  std::optional<TimingResult> adjusted; // wall time minus stolen time per run, compared the same way
  std::vector<int> base_cpus, new_cpus;
  std::string explanation;              // the verdict sentence
  bool fail_above_exceeded = false;
};

struct HostDifference {
  std::string field, base, next;
};

struct Comparison {
  std::string base_label, new_label;
  std::string base_format, new_format;
  Options options;
  std::vector<BenchmarkComparison> benchmarks;  // in BASE's order; never empty
  size_t headline = 0;                          // the benchmark the top-level verdict is about
  std::vector<HostDifference> host_diff;
  std::vector<std::string> warnings;

  const BenchmarkComparison& top() const { return benchmarks.at(headline); }
  bool fail_above_exceeded() const;
};

// The anchors (google/benchmark, pyperf) warn below this many repetitions.
inline constexpr size_t kFewRuns = 9;

}  // namespace nw::compare
