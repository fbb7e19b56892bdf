// SPDX-License-Identifier: Apache-2.0
// Score mode: a scenario's record against its ground truth. Every scenario asserts its ground
// truth with a stated threshold (README: tests/accuracy/README.md), not only a rank. A threshold
// may have a virtual-machine variant, judged only when the strict one fails on a VM; a result
// that needed it is printed as such.
#pragma once
#include <string>
#include <vector>

#include "record/run_record.h"
#include "tests/accuracy/inject/truth.h"

namespace nw::inject {

struct ScoreInput {
  std::string scenario, irq;
  RunRecord rec;
  Truth truth;
  std::vector<RunTruth> runs;  // the measured runs, each with its ground truth

  bool virtualized() const { return rec.host.virtualized; }
  double share(const std::string& source) const;  // attribution share; 0 when absent
  const Attribution* top() const;                 // first attribution row, or null
  const Attribution* first_named() const;         // first row other than unexplained, or null
  std::vector<const RunTruth*> injected() const;
  std::vector<const RunTruth*> clean() const;
};

double time_ms(const RunSample& run, const std::string& source);  // the source's time in the run
uint64_t count_of(const RunSample& run, const std::string& source);
std::string fmt_list(const std::vector<double>& v, const char* f = "%.3f");  // "0.981 1.002 ..."

class Scorecard {
 public:
  explicit Scorecard(const ScoreInput& in) : in_(in) {}
  // A rule: `detail` says what was measured, against which threshold.
  void rule(const std::string& detail, bool pass);
  // A rule with a threshold a VM may adjust (never remove): `strict` is judged first; only on a
  // virtual machine, when it fails, does `vm` decide, and the line says the VM rule was needed.
  void vm_rule(const std::string& detail, bool strict, bool vm, const std::string& vm_detail);
  void note(const std::string& line) { notes_.push_back(line); }
  // Prints "ACCURACY <scenario> PASS|FAIL ..." then every rule and note; returns 0 when all
  // rules passed.
  int print(const std::string& expected) const;

 private:
  struct Line {
    std::string text;
    bool pass, by_vm_rule;
  };
  const ScoreInput& in_;
  std::vector<Line> rules_;
  std::vector<std::string> notes_;
};

// The rules every scenario shares: the injector and the record saw the same repetitions, no
// warm-up was injected, and (when `needs_injection`) some measured run was. Also notes any source
// the scenario did not inject (`injected`: sources, or "category:" prefixes) that took a share
// >= 0.20: on a shared machine, another process's noise explains a failure better than a guess.
void common_rules(const ScoreInput& in, Scorecard& card, bool needs_injection,
                  const std::vector<std::string>& injected);

using ScoreFn = int (*)(const ScoreInput&);
int score_cpu_hog(const ScoreInput& in);
int score_wrappers(const ScoreInput& in);
int score_threads_spread(const ScoreInput& in);
int score_threads_one_cpu(const ScoreInput& in);
int score_timer_storm(const ScoreInput& in);
int score_irq_storm(const ScoreInput& in);
int score_migrations(const ScoreInput& in);
int score_blocking(const ScoreInput& in);
int score_none(const ScoreInput& in);

// Loads the record and the truth log, pairs them, and scores the scenario. Exit status: 0 pass,
// 1 fail, 125 unreadable input.
int score_mode(const std::string& scenario, const std::string& record, const std::string& truth,
               const std::string& irq);

}  // namespace nw::inject
