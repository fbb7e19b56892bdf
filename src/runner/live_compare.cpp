// SPDX-License-Identifier: Apache-2.0
#include "runner/live_compare.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/live_decision.h"
#include "record/window_labels.h"
#include "reports/report.h"
#include "runner/session.h"

namespace nw::runner {

using namespace compare;  // the model and statistics of compare, run live here

namespace {

// The sequential decision as compare's wall-time result: untested (there is no p-value of a
// sample whose size was not fixed), its interval the confidence sequence's.
TimingResult timing_of(const SequentialDecision& d) {
  TimingResult t;
  t.ratio = t.hl_ratio = d.ratio;
  t.ci_bounded = d.low > 0 && std::isfinite(d.high);
  t.ci_low = t.ci_bounded ? d.low : d.ratio;
  t.ci_high = t.ci_bounded ? d.high : d.ratio;
  t.tested = false;
  t.significant = d.outcome == "different";
  t.equivalent = d.outcome == "same";
  t.verdict = d.outcome == "different" ? (d.low > 1 ? Verdict::slower : Verdict::faster)
              : d.outcome == "same"    ? Verdict::no_change
                                       : Verdict::inconclusive;
  return t;
}

std::string ratio_interval(const SequentialDecision& d, double level) {
  auto side = [](double v) { return std::isfinite(v) && v > 0 ? fmt::format("{:.4f}", v) : std::string("unbounded"); };
  return fmt::format("B/A {:.4f}, {:g} % confidence sequence {}–{}", d.ratio, level, side(d.low), side(d.high));
}

// The sentence a live decision is told in (text, markdown and JSON's explanation).
std::string live_sentence(const SequentialDecision& d, const Options& o, size_t max_pairs) {
  const double level = (1 - o.alpha) * 100;
  const std::string pairs = fmt::format("{} pair{}", d.pairs, d.pairs == 1 ? "" : "s");
  if (d.outcome == "different")
    return fmt::format("Different: B is {:.2f} % {} than A ({}), known after {}.", std::fabs(d.ratio - 1) * 100,
                       d.low > 1 ? "slower" : "faster", ratio_interval(d, level), pairs);
  if (d.outcome == "same")
    return fmt::format("The same within ±{:g} %: the interval lies inside it ({}), shown after {}.",
                       o.threshold_percent, ratio_interval(d, level), pairs);
  return fmt::format("Undecided after {} (at most {}): the interval holds 1 and reaches beyond ±{:g} % ({}).", pairs,
                     max_pairs, o.threshold_percent, ratio_interval(d, level));
}

InputFile side_input(const RunRecord& rec, const char* side, const std::string& name) {
  RunRecord one = only_label(rec, side);
  if (rec.compare_sides) {
    const auto& command = std::string_view(side) == kSideA ? rec.compare_sides->a : rec.compare_sides->b;
    if (!command.empty()) one.command = command;
  }
  one.compare_sides.reset();
  InputFile in;
  in.label = fmt::format("{}: {}", side, fmt::join(one.command, " "));
  in.format = InputFormat::noisewatch;
  in.benchmarks = parse_noisewatch(to_json(one), in);  // one side alone: no compare_sides
  for (auto& b : in.benchmarks) b.name = name;
  return in;
}

std::string failure_of(const RunRecord& rec) {
  for (const auto& r : rec.samples)
    if (r.exit_status != 0)
      return fmt::format("{} {} {}", label_text(r.label) == kSideB ? "B" : "A",
                         r.warmup ? "(a warm-up)" : fmt::format("(pair {})", r.pair.value_or(0) + 1),
                         r.signal ? fmt::format("was killed by signal {}", *r.signal)
                                  : fmt::format("exited with status {}", r.exit_status));
  return {};
}

}  // namespace

LiveRun run_live(const LiveRequest& request, const PairProgress& progress, const std::function<void()>& ready) {
  if (request.plan.alternatives.size() != 1) throw Error("live compare needs exactly two commands: A ::: B");
  std::mt19937_64 rng(request.seed ? request.seed : std::random_device{}());
  std::bernoulli_distribution b_first(0.5);
  std::deque<Step> queue;
  int warmups = 0, pairs = 0;
  auto push_pair = [&](bool warmup, std::optional<int> pair) {
    Step a{.command = 0, .warmup = warmup, .label = kSideA, .pair = pair};
    Step b{.command = 1, .warmup = warmup, .label = kSideB, .pair = pair};
    if (b_first(rng)) std::swap(a, b);
    queue.push_back(a);
    queue.push_back(b);
  };
  size_t reported = 0;
  auto schedule = [&](const RunRecord& so_far) -> std::optional<Step> {
    if (queue.empty()) {
      if (warmups < request.plan.warmup) {
        push_pair(true, std::nullopt);
        ++warmups;
      } else {
        auto done = complete_pairs(so_far, request.pair_time);
        SequentialDecision d = decide_pairs(done, request.options.threshold_percent, request.options.alpha);
        if (progress && done.size() > reported) progress(d, request.max_pairs);
        reported = done.size();
        const bool may_stop = done.size() >= request.min_pairs;
        const bool known = request.decided ? request.decided(done) : d.outcome != "undecided";
        if ((may_stop && known) || size_t(pairs) >= request.max_pairs) return std::nullopt;
        push_pair(false, pairs++);
      }
    }
    Step s = queue.front();
    queue.pop_front();
    return s;
  };
  Plan plan = request.plan;
  plan.measured_runs = int(2 * request.max_pairs);  // upper bounds, for messages
  plan.warmup = 2 * request.plan.warmup;
  auto result = run_session(plan, {}, ready, schedule);
  LiveRun out{std::move(result.record), result.exit_status};
  out.record.compare_sides = CompareSides{.a = request.plan.command,
                                          .b = request.plan.alternatives[0],
                                          .max_pairs = request.max_pairs,
                                          .min_pairs = request.min_pairs,
                                          .threshold_percent = request.options.threshold_percent,
                                          .alpha = request.options.alpha};
  return out;
}

Comparison live_comparison(const RunRecord& rec, const Options& options, size_t max_pairs, int session_status) {
  const auto pairs = complete_pairs(rec);
  if (pairs.empty())
    throw Error(session_status ? fmt::format("no pair completed: {}", failure_of(rec))
                               : std::string("the record has no complete pair of A and B runs"));
  LiveComparison live;
  live.max_pairs = max_pairs;
  live.decision = decide_pairs(pairs, options.threshold_percent, options.alpha);
  live.disturbed = find_disturbed(rec, options.threshold_percent);
  if (!live.disturbed.empty()) {
    std::set<int> leave_out;
    for (const auto& d : live.disturbed) leave_out.insert(d.pair);
    live.undisturbed = decide_pairs(pairs, options.threshold_percent, options.alpha, leave_out);
  }
  if (live.decision.outcome == "undecided") live.obstacles = find_obstacles(rec);
  if (session_status) live.failure = failure_of(rec);

  Options o = options;
  o.sequential = timing_of(live.decision);
  const std::vector<std::string> a_cmd = rec.compare_sides ? rec.compare_sides->a : rec.command;
  const std::vector<std::string> b_cmd = rec.compare_sides ? rec.compare_sides->b : rec.command;
  live.a_command = a_cmd;
  live.b_command = b_cmd;
  const std::string name = fmt::format("{}", fmt::join(a_cmd, " ")) == fmt::format("{}", fmt::join(b_cmd, " "))
                               ? fmt::format("{}", fmt::join(a_cmd, " "))
                               : "B vs A";
  Comparison c = compare_inputs(side_input(rec, kSideA, name), side_input(rec, kSideB, name), o);
  for (auto& b : c.benchmarks) {
    b.explanation = live_sentence(live.decision, o, max_pairs);
    // The gate judges a decided slowdown only: an undecided run has no direction to gate on.
    b.fail_above_untested = false;
    b.fail_above_exceeded = o.fail_above_percent && b.timing.verdict == Verdict::slower &&
                            b.timing.change_percent() > *o.fail_above_percent;
  }
  c.live = std::move(live);
  return c;
}

int live_exit_status(const Comparison& c, int session_status) {
  if (session_status == 130 || session_status == 143) return session_status;
  if (session_status != 0 || (c.live && !c.live->failure.empty())) return 3;
  if (c.fail_above_exceeded()) return 1;
  if (c.live && c.live->decision.outcome == "undecided") return 2;
  return 0;
}

std::vector<Obstacle> find_obstacles(const RunRecord& rec, size_t top) {
  const report::Analysis a = report::analyze(rec);
  struct Part {
    std::string side;
    double var = 0;
    const report::Analysis* analysis = nullptr;
  };
  std::vector<Part> parts;
  for (const auto& l : a.by_label)
    if (l.analysis.attribution.attributable) parts.push_back({l.label, l.analysis.attribution.var_t, &l.analysis});
  double total = 0;
  for (const auto& p : parts) total += p.var;
  if (total <= 0) return {};
  std::map<std::string, double> weighted;
  std::map<std::string, std::set<std::string>> seen_in;
  for (const auto& p : parts)
    for (const auto& row : p.analysis->attribution.rows) {
      if (row.share <= 0) continue;
      weighted[row.source] += row.share * p.var;
      seen_in[row.source].insert(p.side);
    }
  std::vector<Obstacle> out;
  for (const auto& [source, w] : weighted) {
    Obstacle o{source, w / total, seen_in[source].size() > 1 ? "both sides" : *seen_in[source].begin(), ""};
    for (const auto& p : parts) {
      if (!o.fix.empty()) break;
      for (const auto& rec_ : p.analysis->recommendations)
        if (!rec_.commands.empty() &&
            std::find(rec_.addresses.begin(), rec_.addresses.end(), source) != rec_.addresses.end()) {
          o.fix = rec_.commands.front();
          break;
        }
    }
    out.push_back(std::move(o));
  }
  std::sort(out.begin(), out.end(), [](const Obstacle& x, const Obstacle& y) { return x.share > y.share; });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace nw::runner
