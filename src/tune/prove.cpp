// SPDX-License-Identifier: Apache-2.0
#include "tune/prove.h"

#include <unistd.h>

#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/render.h"
#include "reports/report.h"
#include "runner/command_lookup.h"
#include "runner/run_outputs.h"
#include "runner/session.h"
#include "system/cpulist.h"
#include "system/sysroot.h"
#include "tune/render.h"
#include "tune/scoped.h"
#include "tune/selection.h"
#include "tune/signal_latch.h"

namespace nw::tune {

namespace {

double mean_stolen_ns(const RunRecord& rec) {
  auto runs = rec.measured();
  if (runs.empty()) return 0;
  double sum = 0;
  for (const auto* r : runs) sum += double(r->stolen_ns());
  return sum / double(runs.size());
}

bool seen(double ns, double count) { return ns > 0 || count > 0; }

// The half's run document (what `noisewatch run --json` writes), analysed once.
nlohmann::json record_json(const RunRecord& rec) { return report::run_document(rec, report::analyze(rec)); }

runner::SessionResult run_half(const runner::Plan& plan, const char* what, bool quiet) {
  if (!quiet)
    fmt::print(stderr, "noisewatch: {}: {} runs on CPU {}\n", what, plan.measured_runs, sys::format_cpulist(plan.cpus));
  bool tty = isatty(STDERR_FILENO);
  auto progress = [&](const RunSample& s, int total) {
    if (quiet || !tty) return;
    fmt::print(stderr, "noisewatch: {} {}/{}: {:.3f} ms\n", s.warmup ? "warm-up" : "run", s.index + 1, total,
               double(s.wall_ns) / 1e6);
  };
  return runner::run_session(plan, progress);
}

}  // namespace

std::string render_proof(const RunRecord& before, const RunRecord& after, const compare::Comparison& c,
                         const ApplyResult& tuning) {
  const auto& b = c.top();
  // A source that disappeared is the tuning's doing only when a knob that changed something
  // addresses it (the catalogue says which); otherwise it stopped by itself between the halves.
  std::vector<const knobs::Knob*> changed;
  for (const auto& k : tuning.knobs)
    if (k.outcome == Outcome::applied || k.outcome == Outcome::partial) changed.push_back(k.knob);
  std::vector<std::string> gone, gone_alone, appeared;
  for (const auto& n : b.noise_diff) {
    bool was = seen(n.base_mean_ns, n.base_mean_count), is = seen(n.new_mean_ns, n.new_mean_count);
    if (!was && is) appeared.push_back(n.source);
    if (!was || is) continue;
    std::string item =
        n.base_mean_ns > 0 ? fmt::format("{} ({}/run)", n.source, compare::format_duration(n.base_mean_ns)) : n.source;
    std::vector<std::string_view> by;
    for (const auto* k : changed)
      if (k->addresses(n.source)) by.push_back(k->id);
    if (by.empty()) gone_alone.push_back(item);
    else gone.push_back(fmt::format("{} by {}", item, fmt::join(by, ", ")));
  }
  std::string out = fmt::format(
      "noisewatch tune prove: {} on CPU {}: {} runs as the machine was, then {} runs tuned; the tuning is restored.\n",
      b.name, sys::format_cpulist(before.cpus), b.base.runs, b.next.runs);
  out += fmt::format("  {:<12} {:.2f} % -> {:.2f} %\n", "CV", before.summary.cv * 100, after.summary.cv * 100);
  out +=
      fmt::format("  {:<12} {} -> {} ({:+.2f} %, Mann-Whitney p {})\n", "median",
                  compare::format_duration(before.summary.median_ns), compare::format_duration(after.summary.median_ns),
                  b.timing.change_percent(), compare::format_p(b.timing.p_value));
  out += fmt::format("  {:<12} {} -> {} per run\n", "stolen", compare::format_duration(mean_stolen_ns(before)),
                     compare::format_duration(mean_stolen_ns(after)));
  out += fmt::format(
      "  {:<12} {}\n", "gone",
      gone.empty() ? "no source the tuning addresses disappeared" : fmt::format("{}", fmt::join(gone, "; ")));
  if (!gone_alone.empty())
    out += fmt::format("  {:<12} {} (no applied knob addresses these: they stopped by themselves)\n", "also gone",
                       fmt::join(gone_alone, ", "));
  if (!appeared.empty()) out += fmt::format("  {:<12} {}\n", "new", fmt::join(appeared, ", "));
  out += fmt::format("  {:<12} {}\n", "tuning", render_apply_brief(tuning));
  for (const auto& f : apply_failures(tuning)) out += fmt::format("  {:<12} {}\n", "refused", f);
  out += "  (the halves ran one after the other: a change of the machine's own load between them shows here too)\n\n";
  out += compare::render_text(c);
  return out;
}

int prove(const ProveArgs& a) {
  if (a.command.empty())
    throw Error("no benchmark command: put it after `--`, e.g. `noisewatch tune prove -- ./bench`");
  if (a.runs < 2) throw Error(fmt::format("--runs must be at least 2 to compare the halves (got {})", a.runs));
  if (a.warmup < 0) throw Error(fmt::format("--warmup cannot be negative (got {})", a.warmup));
  check_writable(a.json, "--json");
  auto selection = select_knobs(split_ids(a.only), split_ids(a.skip));
  sys::Sysroot live;
  runner::Plan plan;
  plan.command = a.command;
  plan.cpus = make_targets(live, a.cpu).cpus;
  plan.cpu_reason = fmt::format("CPU {} (tune prove)", sys::format_cpulist(plan.cpus));
  plan.measured_runs = a.runs;
  plan.warmup = a.warmup;
  if (geteuid() != 0) throw Error("tune prove changes /proc and /sys between its halves: run it as root");
  auto found = runner::lookup_command(plan.command[0]);
  if (found.status) {
    fmt::print(stderr, "noisewatch: {}\n", found.message);
    return found.status;
  }
  JournalFile journal(journal_path_or_default(a.journal));
  recover_pending(journal, a.quiet);  // both halves start from the machine as its owner left it

  auto before = run_half(plan, "as the machine is", a.quiet);
  if (before.exit_status) {
    fmt::print(stderr, "noisewatch: the first half stopped ({}): nothing was tuned\n",
               before.record.warnings.empty() ? "see above" : before.record.warnings.back());
    return before.exit_status;
  }
  std::optional<ScopedTuning> tuning;
  {
    SignalLatch latch;
    tuning.emplace(journal.path(), plan.cpus, selection, "tune prove", a.quiet);
    if (int sig = latch.caught()) return tuning->restore() ? 128 + sig : 1;
  }
  auto after = run_half(plan, "tuned", a.quiet);
  bool restored;
  {
    SignalLatch latch;
    restored = tuning->restore();
  }
  after.record.setup = {{"tune", tuning->summary()}};
  if (after.exit_status) {
    fmt::print(stderr, "noisewatch: the tuned half stopped ({}); the tuning is restored\n",
               after.record.warnings.empty() ? "see above" : after.record.warnings.back());
    return after.exit_status;
  }
  auto bj = record_json(before.record), aj = record_json(after.record);
  auto cmp = compare::compare_inputs(compare::parse_input(bj, "as the machine was"), compare::parse_input(aj, "tuned"),
                                     compare::Options{});
  std::string text = render_proof(before.record, after.record, cmp, tuning->applied());
  if (a.json == "-") {
    fmt::print(stderr, "{}", text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  if (!a.json.empty()) {
    nlohmann::ordered_json j = {{"schema", "noisewatch.tune-prove/1"},
                                {"cpus", plan.cpus},
                                {"before", bj},
                                {"after", aj},
                                {"tuning", tuning->summary()},
                                {"compare", compare::to_json(cmp)}};
    std::string out = j.dump(2) + "\n";
    write_document(out, a.json);
  }
  return restored ? 0 : 1;
}

}  // namespace nw::tune
