// SPDX-License-Identifier: Apache-2.0
// The scenarios with a CPU hog: cpu-hog on a plain benchmark, and the workload shapes of issue
// #12 section 1 (wrapper shells, threads on several CPUs, threads on one CPU) with the same hog.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "reports/source_matrix.h"
#include "sources/vocabulary.h"
#include "stats/descriptive.h"
#include "tests/accuracy/inject/score.h"

namespace nw::inject {

namespace {

const char* const kHog = "preemption:acc_hog";
// The hog is the only noise injected and adds ~100 % to an injected run: it must be the first
// row and explain most of the variance (>= 0.60). VM rule: on a VM the host slows the vCPU by up
// to half from run to run (seen as the workload's own CPU time varying, 280-490 ms for the same
// 250 ms of work), which lands in unexplained or, for threads on one CPU, in their contention;
// there the hog must be the first row among the sources that are neither unexplained nor the
// workload's own (contention, blocking, fault), with share >= 0.40.
constexpr double kHogMinShare = 0.60, kHogMinShareVm = 0.40;
// Charged preemption:acc_hog against the hog's own run time (schedstat): the hog is pinned on the
// benchmark's CPU and lives only while the benchmark runs, so every nanosecond it ran a benchmark
// task was waiting. Within +-10 % in every injected run.
constexpr double kHogTolerance = 0.10;
// A benchmark that never sleeps (wrappers waiting for their children, threads joining) has no
// blocking: at most 1 % of any measured run's wall time.
constexpr double kMaxBlockingFraction = 0.01;
// threads-one-cpu: two threads with equal work on one CPU keep each other waiting for as long as
// both run, i.e. for about twice the shorter one's CPU time. Contention within +-10 % of that in
// every measured run (the scheduler's slices and the start-up order blur the edges).
constexpr double kContentionTolerance = 0.10;

void hog_rules(const ScoreInput& in, Scorecard& card) {
  common_rules(in, card, true, {kHog, "contention:"});
  const auto* top = in.top();
  // The first row that is neither unexplained nor the workload's own doing.
  const std::string comm = sources::benchmark_comm(in.rec.command);
  const Attribution* machine = nullptr;
  double own = 0;
  for (const auto& a : in.rec.attribution) {
    auto g = sources::group_of(sources::parse(a.source), comm);
    if (g == report::Group::workload) own += a.share;
    if (g == report::Group::machine && !machine) machine = &a;
  }
  char buf[400], vm[300];
  std::snprintf(buf, sizeof buf, "rank: %s is the first row (first: %s), share %.3f >= %.2f", kHog,
                top ? top->source.c_str() : "-", in.share(kHog), kHogMinShare);
  std::snprintf(vm, sizeof vm,
                "first among sources neither unexplained nor the workload's own (%s), share >= %.2f; the workload's "
                "own %.3f, unexplained %.3f",
                machine ? machine->source.c_str() : "-", kHogMinShareVm, own, in.share("unexplained"));
  card.vm_rule(buf, top && top->source == kHog && top->share >= kHogMinShare,
               machine && machine->source == kHog && machine->share >= kHogMinShareVm, vm);

  std::vector<double> ratios;
  bool each = true;
  for (const auto* r : in.injected()) {
    double hog = r->truth->value("hog_runtime_ns", 0.0) / 1e6, charged = time_ms(*r->run, kHog);
    double ratio = hog > 0 ? charged / hog : 0;
    ratios.push_back(ratio);
    each = each && std::abs(ratio - 1) <= kHogTolerance;
    std::snprintf(buf, sizeof buf, "run %d: the hog ran %.1f ms (schedstat), charged %.1f ms", r->run->index, hog,
                  charged);
    card.note(buf);
  }
  std::snprintf(buf, sizeof buf,
                "truth: charged %s / the hog's run time within 1 +- %.2f in every injected run (%zu runs, median %.3f: "
                "%s)",
                kHog, kHogTolerance, ratios.size(), ratios.empty() ? 0 : stats::median(ratios),
                fmt_list(ratios).c_str());
  card.rule(buf, !ratios.empty() && each);
}

// Blocking near zero for a benchmark that never blocks as a whole.
void no_blocking_rule(const ScoreInput& in, Scorecard& card) {
  double worst = 0, worst_us = 0;
  int worst_run = -1;
  for (const auto& r : in.runs) {
    double f = r.run->wall_ns ? double(r.run->blocking_ns) / double(r.run->wall_ns) : 1.0;
    if (f >= worst) worst = f, worst_run = r.run->index, worst_us = double(r.run->blocking_ns) / 1e3;
  }
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "blocking <= %.1f %% of the wall time in every measured run (worst: run %d, %.1f us, %.4f %%)",
                100 * kMaxBlockingFraction, worst_run, worst_us, 100 * worst);
  card.rule(buf, !in.runs.empty() && worst <= kMaxBlockingFraction);
}

// The benchmark's own comms: what the injector saw (its threads, the wrapper processes above it),
// the command's name, the names of its contention sources (by definition its own tasks), and
// `helpers`: the short-lived processes the scenario's wrappers fork, too brief to be seen.
std::set<std::string> own_comms(const ScoreInput& in, std::initializer_list<const char*> helpers) {
  std::set<std::string> own(helpers.begin(), helpers.end());
  own.insert(sources::benchmark_comm(in.rec.command));
  for (const auto& [idx, t] : in.truth.reps)
    if (t.contains("own_comms"))
      for (const auto& c : t["own_comms"]) own.insert(c.get<std::string>());
  for (const auto& r : in.rec.samples)
    for (const auto& n : r.noise)
      if (auto id = sources::parse(n.source); id.category == sources::kContention) own.insert(id.name);
  own.erase("");
  return own;
}

// Never `preemption:<one of the benchmark's own comms>`: in no run, in no attribution row.
void no_self_preemption_rule(const ScoreInput& in, Scorecard& card, const std::set<std::string>& own) {
  std::set<std::string> seen;
  auto check = [&](const std::string& source) {
    if (auto id = sources::parse(source); id.category == sources::kPreemption && own.count(id.name))
      seen.insert(source);
  };
  for (const auto& r : in.rec.samples)
    for (const auto& n : r.noise) check(n.source);
  for (const auto& a : in.rec.attribution) check(a.source);
  std::string names, found;
  for (const auto& c : own) {
    if (!names.empty()) names += ' ';
    names += c;
  }
  for (const auto& s : seen) found += " " + s;
  card.rule("no preemption:<own comm> in any run or row (own comms: " + names + ")" +
                (found.empty() ? "" : "; found:" + found),
            seen.empty());
}

}  // namespace

int score_cpu_hog(const ScoreInput& in) {
  Scorecard card(in);
  hog_rules(in, card);
  return card.print(kHog);
}

int score_wrappers(const ScoreInput& in) {
  Scorecard card(in);
  hog_rules(in, card);
  no_blocking_rule(in, card);
  // tests/workloads/acc_wrap1.sh and acc_wrap2.sh fork these.
  no_self_preemption_rule(in, card, own_comms(in, {"acc_wrap1.sh", "acc_wrap2.sh", "dirname", "uname", "cat", "wc"}));
  return card.print(kHog);
}

int score_threads_spread(const ScoreInput& in) {
  Scorecard card(in);
  hog_rules(in, card);
  no_blocking_rule(in, card);
  no_self_preemption_rule(in, card, own_comms(in, {}));
  // The premise: the workers really ran on different CPUs.
  std::set<long> cpus;
  for (const auto& r : in.runs)
    if (r.truth->contains("threads"))
      for (const auto& t : (*r.truth)["threads"]) cpus.insert(t["cpu"].get<long>());
  card.rule("the workers were pinned to " + std::to_string(cpus.size()) + " different CPUs: must be >= 2",
            cpus.size() >= 2 && !cpus.count(-1));
  return card.print(kHog);
}

int score_threads_one_cpu(const ScoreInput& in) {
  Scorecard card(in);
  hog_rules(in, card);
  no_blocking_rule(in, card);
  auto own = own_comms(in, {});
  no_self_preemption_rule(in, card, own);

  // Contention: present in every measured run, and about twice the shorter worker's CPU time.
  const std::string contention = sources::format(sources::kContention, sources::benchmark_comm(in.rec.command));
  std::vector<double> ratios;
  bool present = !in.runs.empty(), near = !in.runs.empty();
  char buf[400];
  for (const auto& r : in.runs) {
    double shorter = 0;
    if (r.truth->contains("threads") && !(*r.truth)["threads"].empty()) {
      shorter = 1e300;
      for (const auto& t : (*r.truth)["threads"]) shorter = std::min(shorter, t["cpu_ns"].get<double>() / 1e6);
    }
    double c = time_ms(*r.run, contention), ratio = shorter > 0 ? c / (2 * shorter) : 0;
    present = present && count_of(*r.run, contention) > 0;
    near = near && std::abs(ratio - 1) <= kContentionTolerance;
    ratios.push_back(ratio);
    std::snprintf(buf, sizeof buf, "run %d%s: %s %.1f ms (%llu), shorter worker's CPU time %.1f ms", r.run->index,
                  r.injected ? " (hog)" : "", contention.c_str(), c, (unsigned long long)count_of(*r.run, contention),
                  shorter);
    card.note(buf);
  }
  card.rule(contention + " present in every measured run", present);
  std::snprintf(buf, sizeof buf, "truth: %s / (2 x the shorter worker's CPU time) within 1 +- %.2f in every run (%s)",
                contention.c_str(), kContentionTolerance, fmt_list(ratios).c_str());
  card.rule(buf, near);

  // Never advice to remove it: the only recommendation that may address the workload's own
  // contention is more-cpus (more CPUs or fewer threads: a setup to choose, nothing removed).
  std::string removers;
  for (const auto& rec : in.rec.recommendations)
    for (const auto& a : rec.addresses)
      if (sources::parse(a).category == sources::kContention && rec.id != "more-cpus")
        removers += " " + rec.id + "(" + a + ")";
  card.rule("no recommendation but more-cpus addresses a contention source" +
                (removers.empty() ? std::string() : "; found:" + removers),
            removers.empty());
  return card.print(kHog + std::string(" + ") + contention);
}

}  // namespace nw::inject
