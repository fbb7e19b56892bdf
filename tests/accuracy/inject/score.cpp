// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/score.h"

#include <cstdio>
#include <exception>
#include <map>

#include "tests/accuracy/inject/proc_util.h"
#include "tests/accuracy/inject/scenarios.h"

namespace nw::inject {

double ScoreInput::share(const std::string& source) const {
  for (const auto& a : rec.attribution)
    if (a.source == source) return a.share;
  return 0;
}

const Attribution* ScoreInput::top() const { return rec.attribution.empty() ? nullptr : &rec.attribution.front(); }

const Attribution* ScoreInput::first_named() const {
  for (const auto& a : rec.attribution)
    if (a.source != "unexplained") return &a;
  return nullptr;
}

std::vector<const RunTruth*> ScoreInput::injected() const {
  std::vector<const RunTruth*> v;
  for (const auto& r : runs)
    if (r.injected) v.push_back(&r);
  return v;
}

std::vector<const RunTruth*> ScoreInput::clean() const {
  std::vector<const RunTruth*> v;
  for (const auto& r : runs)
    if (!r.injected) v.push_back(&r);
  return v;
}

double time_ms(const RunSample& run, const std::string& source) {
  const auto* n = run.find(source);
  return n ? double(n->time_ns) / 1e6 : 0.0;
}

uint64_t count_of(const RunSample& run, const std::string& source) {
  const auto* n = run.find(source);
  return n ? n->count : 0;
}

std::string fmt_list(const std::vector<double>& v, const char* f) {
  std::string s;
  char buf[64];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, f, x);
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

void Scorecard::rule(const std::string& detail, bool pass) { rules_.push_back({detail, pass, false}); }

void Scorecard::vm_rule(const std::string& detail, bool strict, bool vm, const std::string& vm_detail) {
  if (strict || !in_.virtualized()) {
    rules_.push_back({detail, strict, false});
    return;
  }
  rules_.push_back({detail + "; VM rule: " + vm_detail, vm, vm});
}

int Scorecard::print(const std::string& expected) const {
  bool pass = true, vm = false;
  for (const auto& r : rules_) {
    pass = pass && r.pass;
    vm = vm || (r.pass && r.by_vm_rule);
  }
  const auto* named = in_.first_named();
  std::printf("ACCURACY %-15s %s%s  expected %s; first named %s %.3f, unexplained %.3f\n", in_.scenario.c_str(),
              pass ? "PASS" : "FAIL", vm && pass ? " (by a VM rule)" : "", expected.c_str(),
              named ? named->source.c_str() : "-", named ? named->share : 0.0, in_.share("unexplained"));
  for (const auto& r : rules_)
    std::printf("    %s  %s\n", !r.pass ? "FAIL" : r.by_vm_rule ? "PASS (VM rule)" : "PASS", r.text.c_str());
  for (const auto& n : notes_) std::printf("    %s\n", n.c_str());
  return pass ? 0 : 1;
}

void common_rules(const ScoreInput& in, Scorecard& card, bool needs_injection,
                  const std::vector<std::string>& injected) {
  size_t reps = in.truth.reps.size(), runs = in.rec.samples.size();
  card.rule("the injector saw " + std::to_string(reps) + " repetitions, the record has " + std::to_string(runs) +
                " runs: must be equal",
            reps == runs && !in.rec.interrupted);
  std::vector<int> bad;
  for (const auto& r : in.rec.samples)
    if (r.warmup && in.truth.reps.count(r.index) && in.truth.reps.at(r.index).value("injected", false))
      bad.push_back(r.index);
  if (!bad.empty()) card.rule("warm-up run " + std::to_string(bad.front()) + " was injected: must not be", false);
  if (needs_injection)
    card.rule(std::to_string(in.injected().size()) + " of " + std::to_string(in.runs.size()) +
                  " measured runs injected, " + std::to_string(in.clean().size()) + " clean: both must be > 0",
              !in.injected().empty() && !in.clean().empty());
  char buf[160];
  std::snprintf(buf, sizeof buf, "lost_events %llu; host %s", (unsigned long long)in.rec.lost_events,
                in.virtualized() ? "virtual machine" : "not virtualized");
  card.note(buf);
  for (const auto& a : in.rec.attribution) {
    if (a.source == "unexplained" || a.share < 0.20) continue;
    bool ours = false;
    for (const auto& s : injected) ours = ours || a.source == s || (s.back() == ':' && a.source.rfind(s, 0) == 0);
    if (ours) continue;
    std::snprintf(buf, sizeof buf,
                  "not injected by this scenario: %s with share %.3f (another process's noise? rerun "
                  "on a quieter machine)",
                  a.source.c_str(), a.share);
    card.note(buf);
  }
}

int score_mode(const std::string& scenario, const std::string& record, const std::string& truth,
               const std::string& irq) {
  static const std::map<std::string, ScoreFn> fns = {{"cpu-hog", score_cpu_hog},
                                                     {"wrappers", score_wrappers},
                                                     {"threads-spread", score_threads_spread},
                                                     {"threads-one-cpu", score_threads_one_cpu},
                                                     {"timer-storm", score_timer_storm},
                                                     {"irq-storm", score_irq_storm},
                                                     {"migrations", score_migrations},
                                                     {"blocking", score_blocking},
                                                     {"none", score_none}};
  auto fn = fns.find(scenario);
  if (fn == fns.end()) die("unknown scenario '" + scenario + "' (scenarios: " + scenario_names() + ")");
  ScoreInput in;
  in.scenario = scenario;
  in.irq = irq;
  try {
    in.rec = load_run_record(record);
    in.truth = load_truth(truth);
  } catch (const std::exception& e) {
    die(std::string("cannot score: ") + e.what());
  }
  for (const auto& r : in.rec.samples) {
    if (r.warmup || r.interrupted) continue;
    auto t = in.truth.reps.find(r.index);
    if (t == in.truth.reps.end()) continue;  // counted by common_rules' equal-repetitions rule
    in.runs.push_back({&r, &t->second, t->second.value("injected", false)});
  }
  return fn->second(in);
}

}  // namespace nw::inject
