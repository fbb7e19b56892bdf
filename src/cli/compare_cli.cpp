// SPDX-License-Identifier: Apache-2.0
// `noisewatch compare BASE NEW`: timing statistics plus a noise-profile diff -> verdict.
// Exit 0, or 1 when --fail-above is exceeded; 125 for unreadable or invalid input.
// `noisewatch compare [options] -- A ::: B`: both commands measured live (src/runner/live_compare.h).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "common/errors.h"
#include "common/output.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/live_decision.h"
#include "compare/render.h"
#include "reports/report.h"
#include "runner/command_lookup.h"
#include "runner/cpu_choice.h"
#include "runner/live_compare.h"
#include "stats/sequential.h"

namespace nw::cli {

namespace {

// Between the two commands of a live compare (GNU parallel's word for "the next argument list").
constexpr const char* kCommandSeparator = ":::";

struct CompareArgs {
  std::string base, next, format, output;
  double threshold = 1.0;
  bool threshold_given = false;
  double fail_above = -1;  // < 0: not given
  // Live compare (`-- A ::: B`).
  std::string cpu, json;
  int max_runs = 100, min_runs = 0, warmup = 1;
  double confidence = 95;
  uint64_t seed = 0;
  double git_bisect = -1;                   // --git-bisect PERCENT (< 0: not given)
  bool quiet = false, live_option = false;  // live_option: one of the above was given
};

// One file: a live compare's record (--json), re-rendered like `report` re-renders a run.
int run_live_record(const CompareArgs& a, const compare::Options& options) {
  RunRecord rec;
  try {
    rec = load_run_record(a.base);
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
  if (!rec.compare_sides)
    throw Error(
        fmt::format("{} is not a live compare record: give two files (BASE NEW), or measure two commands "
                    "with compare -- A ::: B",
                    a.base));
  // The decision is the record's, at its confidence; --threshold may ask another margin.
  compare::Options o = options;
  o.alpha = rec.compare_sides->alpha.value_or(o.alpha);
  if (!a.threshold_given) o.threshold_percent = rec.compare_sides->threshold_percent.value_or(o.threshold_percent);
  auto c = runner::live_comparison(rec, o, rec.compare_sides->max_pairs);
  write_document(render_as(compare::compare_formats(), a.format.empty() ? "text" : a.format, c, false), a.output);
  return runner::live_exit_status(c, 0);
}

int run_files(const CompareArgs& a) {
  check_writable(a.output, "-o");
  compare::Options options;
  options.threshold_percent = a.threshold;
  if (a.fail_above >= 0) options.fail_above_percent = a.fail_above;
  if (a.next.empty()) return run_live_record(a, options);
  auto base = compare::load_input(a.base);
  auto next = compare::load_input(a.next);
  auto result = compare::compare_inputs(base, next, options);
  write_document(render_as(compare::compare_formats(), a.format.empty() ? "text" : a.format, result, false), a.output);
  return result.fail_above_exceeded() ? 1 : 0;
}

// `A ::: B` after `--`: the two command lines.
std::pair<std::vector<std::string>, std::vector<std::string>> split_commands(const std::vector<std::string>& words) {
  auto sep = std::find(words.begin(), words.end(), kCommandSeparator);
  if (sep == words.end())
    throw Error(
        "compare -- needs two commands separated by :::, e.g. noisewatch compare -- ./bench-old ::: ./bench-new");
  if (std::find(sep + 1, words.end(), kCommandSeparator) != words.end())
    throw Error("compare -- takes two commands, A ::: B: there is more than one :::");
  std::vector<std::string> a(words.begin(), sep), b(sep + 1, words.end());
  if (a.empty() || b.empty())
    throw Error(
        fmt::format("compare -- A ::: B: command {} is empty, e.g. noisewatch compare -- ./bench-old ::: "
                    "./bench-new",
                    a.empty() ? "A" : "B"));
  return {a, b};
}

// git bisect run's exit statuses: 0 good, 1 bad, 125 skip (undecided, or a command failed), and
// 128 (abort) for noisewatch's own errors, which a skip would hide.
int git_bisect_status(const runner::LiveRun& live, const compare::Options& o, double half) {
  const auto pairs = compare::complete_pairs(live.record, compare::PairTime::undisturbed);
  const auto d = compare::decide_pairs(pairs, o.threshold_percent, o.alpha);
  if (live.session_status || pairs.empty()) {
    fmt::print(stderr, "noisewatch: --git-bisect: a command failed: skip (125)\n");
    return 125;
  }
  const auto where = compare::side_of(d, half);
  const char* verdict = where == stats::Side::above   ? "bad (1)"
                        : where == stats::Side::below ? "good (0)"
                                                      : "undecided: skip (125)";
  fmt::print(
      stderr,
      "noisewatch: --git-bisect: B/A {:.4f} (undisturbed times) after {} pairs against the midpoint {:.4f}: {}\n",
      d.ratio, d.pairs, std::exp(half), verdict);
  return where == stats::Side::above ? 1 : where == stats::Side::below ? 0 : 125;
}

int run_live(const CompareArgs& a, const std::vector<std::string>& words) {
  if (!a.base.empty())
    throw Error("compare takes either two files (BASE NEW) or two commands after -- (A ::: B), not both");
  auto [cmd_a, cmd_b] = split_commands(words);
  if (a.max_runs < 2) throw Error(fmt::format("--max-runs must be at least 2 (got {})", a.max_runs));
  if (a.min_runs > a.max_runs)
    throw Error(fmt::format("--min-runs {} is above --max-runs {}: raise --max-runs", a.min_runs, a.max_runs));
  if (a.warmup < 0) throw Error(fmt::format("--warmup cannot be negative (got {})", a.warmup));
  if (const auto names = format_names(compare::compare_formats());
      !a.format.empty() && std::find(names.begin(), names.end(), a.format) == names.end())
    throw Error(fmt::format("--format {}: not one of {}", a.format, fmt::join(names, ", ")));
  if (!a.output.empty()) check_writable(a.output, "-o");
  if (!a.json.empty() && a.json != "-") check_writable(a.json, "--json");
  if (a.json == "-" && !a.format.empty() && a.output.empty())
    throw Error("--json - and --format both want stdout: send one of them to a file (-o FILE or --json FILE)");
  for (const auto* cmd : {&cmd_a, &cmd_b}) {
    auto found = runner::lookup_command(cmd->front());
    if (found.status) {
      fmt::print(stderr, "noisewatch: {}\n", found.message);
      return found.status;
    }
  }
  runner::LiveRequest req;
  req.plan.command = cmd_a;
  req.plan.alternatives = {cmd_b};
  auto cpus = runner::cpus_for(a.cpu);
  req.plan.cpus = cpus.cpus;
  req.plan.cpu_reason = cpus.reason;
  req.plan.warmup = a.warmup;
  req.max_pairs = size_t(a.max_runs);
  req.min_pairs = size_t(std::max(a.min_runs, 0));
  req.options.alpha = (100 - a.confidence) / 100;
  req.options.threshold_percent = a.threshold;
  if (a.fail_above >= 0) req.options.fail_above_percent = a.fail_above;
  req.seed = a.seed;
  const bool tty = isatty(STDERR_FILENO);
  auto ready = [&] {
    if (a.quiet) return;
    fmt::print(stderr, "noisewatch: pinned to {}\n", req.plan.cpu_reason);
    fmt::print(stderr,
               "noisewatch: A and B run in pairs of random order until the answer is known, {} pairs at most ({} "
               "warm-up{} each)\n",
               req.max_pairs, req.plan.warmup, req.plan.warmup == 1 ? "" : "s");
  };
  auto progress = [&](const compare::SequentialDecision& d, size_t max_pairs) {
    if (a.quiet || !tty) return;
    fmt::print(stderr, "noisewatch: pair {}/{}: B/A {:.4f}, interval {}: {}\n", d.pairs, max_pairs, d.ratio,
               compare::interval_text(d.low, d.high), d.outcome);
  };
  // --git-bisect: B is bad when its median ratio to A lies above half the regression, good below.
  const double half = std::log1p(a.git_bisect / 100) / 2;
  // As bisect: on the undisturbed times (compare::PairTime).
  if (a.git_bisect >= 0) req.pair_time = compare::PairTime::undisturbed;
  if (a.git_bisect >= 0)
    req.decided = [&](const auto& pairs) {
      return compare::side_of(compare::decide_pairs(pairs, req.options.threshold_percent, req.options.alpha), half) !=
             stats::Side::across;
    };
  auto live = runner::run_live(req, progress, ready);
  if (a.git_bisect >= 0) return git_bisect_status(live, req.options, half);
  // The record first: whatever happens below, the measurements are not lost.
  std::string record_error;
  if (!a.json.empty()) {
    try {
      write_document(report::render(live.record, report::Format::json, false), a.json);
    } catch (const Error& e) {
      record_error = e.what();
    }
  }
  compare::Comparison c;
  try {
    c = runner::live_comparison(live.record, req.options, req.max_pairs, live.session_status);
  } catch (const Error& e) {
    if (!live.session_status) throw;
    fmt::print(stderr, "noisewatch: {}\n", e.what());
    return live.session_status == 130 || live.session_status == 143 ? live.session_status : 3;
  }
  const std::string format = a.format.empty() ? "text" : a.format;
  std::string text = render_as(compare::compare_formats(), format, c, false);
  // Like `run`: on stderr unless a format or a file was asked for, so the commands' own output
  // keeps stdout.
  if (!a.output.empty()) write_document(text, a.output);
  else write_document(text, "", a.format.empty() ? stderr : stdout);
  if (!record_error.empty()) throw Error(record_error);
  return runner::live_exit_status(c, live.session_status);
}

}  // namespace

void register_compare(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("compare", "compare two runs, or measure two commands live: code, or noise?");
  auto args = std::make_shared<CompareArgs>();
  sub->add_option("BASE", args->base,
                  "baseline: noisewatch run report, Google Benchmark, hyperfine or pyperf JSON (or .json.gz); "
                  "alone: a live compare's --json record, re-rendered")
      ->type_name("FILE");
  sub->add_option("NEW", args->next, "the run to judge, same kinds of file as BASE")->type_name("FILE");
  add_format_option(sub, args->format, format_names(compare::compare_formats()),
                    format_help(compare::compare_formats()));
  sub->add_option("-o,--output", args->output, "write the report to FILE instead of stdout")->type_name("FILE");
  sub->add_option("--threshold", args->threshold,
                  "PERCENT: smaller changes count as no-change even when significant; live: the margin within "
                  "which A and B are shown the same (default 1)")
      ->check(CLI::Range(0.0, 1000.0))
      ->each([args](const std::string&) { args->threshold_given = true; });
  sub->add_option("--fail-above", args->fail_above,
                  "PERCENT: exit 1 when NEW (live: B) is slower by more than this, significantly (live: decided) "
                  "(files with fewer than 2 runs on a side: when the ratio alone is above it)")
      ->check(CLI::Range(0.0, 1e6));
  auto live = [args](const std::string&) { args->live_option = true; };
  sub->add_option("-c,--cpu", args->cpu, "live: the CPU both commands run on (default: the one `run` would pick)")
      ->each(live);
  sub->add_option("--max-runs", args->max_runs,
                  "live: runs of each command at most (default 100): undecided by then is exit 2")
      ->each(live);
  sub->add_option("--min-runs", args->min_runs,
                  "live: runs of each command before any decision (default 0: decide as soon as it is known)")
      ->each(live);
  sub->add_option("--confidence", args->confidence,
                  "PERCENT: live: the confidence of the decision, whenever it stops (default 95)")
      ->check(CLI::Range(50.0, 99.999))
      ->each(live);
  sub->add_option("-w,--warmup", args->warmup, "live: unmeasured runs of each command first (default 1)")->each(live);
  sub->add_option("--json", args->json, "live: write the run record of both sides (noisewatch.run/1) to FILE")
      ->type_name("FILE")
      ->each(live);
  sub->add_option("--seed", args->seed, "live: the seed of the pairs' random order (default: a new one each time)")
      ->each(live);
  sub->add_flag("-q,--quiet", args->quiet, "live: no progress lines on stderr");
  sub->add_option("--git-bisect", args->git_bisect,
                  "PERCENT: live, for `git bisect run`: A is a good build, B the commit under test, PERCENT the "
                  "regression sought; exit 0 when B lies below half of it, 1 above, 125 undecided or a failed "
                  "command (skip), 128 on noisewatch's own errors (abort)")
      ->check(CLI::Range(0.01, 1000.0))
      ->each(live);
  sub->footer(
      "Examples:\n"
      "  noisewatch compare -- ./bench-old ::: ./bench-new          # measure both live until decided\n"
      "  noisewatch compare --fail-above 2 --json ab.json -- ./old --n 5 ::: ./new --n 5\n"
      "  noisewatch compare ab.json --format markdown                # that record again, for a PR\n"
      "  noisewatch compare base.json new.json --fail-above 2        # noisewatch run reports\n"
      "  noisewatch compare old/bench.json new/bench.json            # Google Benchmark --benchmark_out\n"
      "  noisewatch compare py311.json.gz py312.json.gz --format markdown   # pyperf, for a PR comment\n"
      "  noisewatch compare a.json b.json --format json -o cmp.json  # hyperfine --export-json\n"
      "\n"
      "Files: benchmarks are matched by name. Each is tested with Mann-Whitney U (exact up to 50 runs a\n"
      "side without ties), Holm-adjusted across the file; fewer than 2 runs on a side is 'inconclusive'.\n"
      "Exit 0, or 1 when --fail-above is exceeded; 125 for unreadable or invalid input.\n"
      "\n"
      "Live (-- A ::: B): A and B run on one pinned CPU in pairs of random order, recorded with their\n"
      "noise as `run` records them, until a confidence sequence for the median of log(B/A) over the\n"
      "pairs decides: different (it excludes 1), the same (it lies inside +-threshold), or undecided\n"
      "at --max-runs (then it names the noise that stood in the way). Valid however early it stops.\n"
      "Exit 0 decided, 1 B slower beyond --fail-above, 2 undecided, 3 a command failed, 125 own error.");
  sub->callback([&action, args] {
    const auto& words = trailing_args();
    if (!words.empty()) {
      action = [args, words]() -> int {
        if (args->git_bisect < 0) return run_live(*args, words);
        try {
          return run_live(*args, words);
        } catch (const Error& e) {  // git bisect run takes 125 for "skip": an error must abort it
          fmt::print(stderr, "noisewatch: {}\n", e.what());
          return 128;
        }
      };
      return;
    }
    if (args->base.empty())
      throw CLI::ValidationError("compare",
                                 "give two files (BASE NEW), a live compare's record, or two commands "
                                 "after --: compare -- A ::: B");
    if (args->live_option)
      throw CLI::ValidationError("compare",
                                 "--cpu, --max-runs, --min-runs, --confidence, --warmup, --json and --seed "
                                 "measure commands: give them as compare [options] -- A ::: B");
    action = [args]() -> int { return run_files(*args); };
  });
}

}  // namespace nw::cli
