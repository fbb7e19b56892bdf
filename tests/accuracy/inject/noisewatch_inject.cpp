// SPDX-License-Identifier: Apache-2.0
// noisewatch_inject: applies one noise scenario with a known ground truth to a target CPU during
// chosen repetitions of a benchmark that `noisewatch run` profiles, and scores the report against
// that ground truth. tests/accuracy/run.sh drives it; tests/accuracy/README.md states every
// scenario's rule.
//
// How repetition boundaries are learned: the benchmark (tests/workloads/acc_work, acc_threads)
// writes its pid to PIDFILE at the start of every execution (temporary name + rename). The
// injector watches the directory with inotify, so every new pid is the next repetition k
// (0-based, warm-ups included, in the same order as `runs[].index` of the record), and it follows
// that process with a pidfd until it exits. With --pattern alternate (default) the measured
// repetitions 1, 3, 5, ... get the injection; the others run clean.
//
// The parts (tests/accuracy/inject/): run_mode (the repetition watcher), injections and
// irq_target (the noises), truth (the ground-truth log), score and score_* (the rules).
#include <cstdio>
#include <string>
#include <vector>

#include "tests/accuracy/inject/proc_util.h"
#include "tests/accuracy/inject/run_mode.h"
#include "tests/accuracy/inject/scenarios.h"
#include "tests/accuracy/inject/score.h"

namespace {

using namespace nw::inject;

void usage(FILE* to) {
  std::fprintf(to,
               "usage: noisewatch_inject SCENARIO --cpu N --pidfile F [--truth FILE] [--warmup W]\n"
               "         [--pattern alternate|all|none] [--other-cpu M] [--irq NAME] [--dir DIR]\n"
               "         [--io-threads N] [--period-us US] [--moves N] [--move-ms MS] [--sleep-ms A,B,..]\n"
               "         -- CMD [ARGS...]\n"
               "       noisewatch_inject score SCENARIO --record RUN.json --truth TRUTH.jsonl [--irq NAME]\n"
               "\n"
               "Run mode starts CMD, injects SCENARIO's noise on CPU N in the odd measured repetitions of the\n"
               "benchmark that writes its pid to F, logs the ground truth to --truth and exits with CMD's status.\n"
               "Score mode checks a record against that log and prints ACCURACY <scenario> PASS|FAIL with every\n"
               "rule it judged (exit 0 pass, 1 fail).\n"
               "\n"
               "scenarios:\n");
  for (const auto& s : scenarios()) std::fprintf(to, "  %-16s %s\n", s.name, s.what);
  std::fprintf(to,
               "\n"
               "examples (root; the suite, tests/accuracy/run.sh, does this for every scenario):\n"
               "  noisewatch_inject cpu-hog --cpu 1 --pidfile /dev/shm/b.pid --truth hog.truth -- \\\n"
               "      noisewatch run --cpu 1 --runs 12 --json hog.json -- acc_work 80000 /dev/shm/b.pid\n"
               "  noisewatch_inject score cpu-hog --record hog.json --truth hog.truth\n");
}

std::vector<int> parse_int_list(const std::string& s) {
  std::vector<int> v;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    v.push_back(std::stoi(s.substr(pos, comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) die("needs a SCENARIO or `score SCENARIO ...` (see --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    usage(stdout);
    return 0;
  }
  auto need = [&](size_t& i) -> std::string {
    if (i + 1 >= args.size()) die(args[i] + " needs a value");
    return args[++i];
  };
  if (args[0] == "score") {
    if (args.size() < 2) die("score needs a SCENARIO (" + scenario_names() + ")");
    std::string record, truth, irq = "virtio1-req.0";
    for (size_t i = 2; i < args.size(); ++i) {
      if (args[i] == "--record") record = need(i);
      else if (args[i] == "--truth") truth = need(i);
      else if (args[i] == "--irq") irq = need(i);
      else die("unknown option " + args[i] + " (see --help)");
    }
    if (record.empty() || truth.empty()) die("score needs --record RUN.json and --truth TRUTH.jsonl");
    return score_mode(args[1], record, truth, irq);
  }
  RunOptions o;
  o.scenario = find_scenario(args[0]);
  if (!o.scenario) die("unknown scenario '" + args[0] + "' (scenarios: " + scenario_names() + ")");
  size_t i = 1;
  for (; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    try {
      if (a == "--cpu") o.cpu = std::stoi(need(i));
      else if (a == "--other-cpu" || a == "--io-cpu") o.other_cpu = std::stoi(need(i));
      else if (a == "--pidfile") o.pidfile = need(i);
      else if (a == "--truth") o.truth = need(i);
      else if (a == "--warmup") o.warmup = std::stoi(need(i));
      else if (a == "--pattern") o.pattern = need(i);
      else if (a == "--irq") o.irq = need(i);
      else if (a == "--dir") o.dir = need(i);
      else if (a == "--io-threads") o.io_threads = std::stoi(need(i));
      else if (a == "--period-us") o.period_us = std::stoi(need(i));
      else if (a == "--moves") o.moves = std::stoi(need(i));
      else if (a == "--move-ms") o.move_ms = std::stoi(need(i));
      else if (a == "--sleep-ms") o.sleep_ms = parse_int_list(need(i));
      else die("unknown option " + a + " (see --help)");
    } catch (const std::logic_error&) {
      die("bad number for " + a);
    }
  }
  for (; i < args.size(); ++i) o.command.push_back(args[i]);
  if (o.pattern != "alternate" && o.pattern != "all" && o.pattern != "none") die("--pattern: alternate, all or none");
  return run_mode(std::move(o));
}
