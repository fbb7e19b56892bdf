// SPDX-License-Identifier: Apache-2.0
// `noisewatch bisect --good REV --bad REV [--build CMD] [options] -- BENCH [ARGS...]`
#include <unistd.h>

#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "common/output.h"
#include "runner/bisect.h"
#include "runner/cpu_choice.h"

namespace nw::cli {

namespace {

struct BisectArgs {
  std::string good, bad, build, repo = ".", cpu, json, format, output, cache;
  int max_runs = 60, warmup = 1;
  double confidence = 99, threshold = 1;
  uint64_t seed = 0;
  bool keep = false, quiet = false;
};

int do_bisect(const BisectArgs& a, const std::vector<std::string>& bench) {
  if (bench.empty())
    throw Error(
        "no benchmark command: put it after `--`, e.g. noisewatch bisect --good v1 --bad HEAD --build make -- "
        "./bench");
  if (a.max_runs < 2) throw Error(fmt::format("--max-runs must be at least 2 (got {})", a.max_runs));
  if (a.warmup < 0) throw Error(fmt::format("--warmup cannot be negative (got {})", a.warmup));
  if (!a.format.empty() && a.format != "text" && a.format != "json")
    throw Error(fmt::format("--format {}: not one of text, json", a.format));
  if (!a.output.empty()) check_writable(a.output, "-o");
  if (!a.json.empty()) check_writable(a.json, "--json");
  runner::BisectRequest req;
  req.repo = a.repo;
  req.good = a.good;
  req.bad = a.bad;
  req.build = a.build;
  req.plan.command = bench;
  auto cpus = runner::cpus_for(a.cpu);
  req.plan.cpus = cpus.cpus;
  req.plan.cpu_reason = cpus.reason;
  req.plan.warmup = a.warmup;
  req.max_pairs = size_t(a.max_runs);
  req.alpha = (100 - a.confidence) / 100;
  req.threshold_percent = a.threshold;
  req.cache = a.cache;
  req.keep = a.keep;
  req.seed = a.seed;
  if (!a.quiet) fmt::print(stderr, "noisewatch bisect: pinned to {}\n", req.plan.cpu_reason);
  auto result = runner::run_bisect(req, [&](const std::string& line) {
    if (!a.quiet) fmt::print(stderr, "noisewatch bisect: {}\n", line);
  });
  if (!a.json.empty()) write_document(runner::bisect_json(result).dump(2) + "\n", a.json);
  const std::string text =
      a.format == "json" ? runner::bisect_json(result).dump(2) + "\n" : runner::render_bisect_text(result);
  // Like `run`: the benchmark's output keeps stdout unless a format or a file was asked for.
  if (!a.output.empty()) write_document(text, a.output);
  else write_document(text, "", a.format.empty() ? stderr : stdout);
  return runner::bisect_exit_status(result);
}

}  // namespace

void register_bisect(CLI::App& app, Action& action) {
  auto args = std::make_shared<BisectArgs>();
  auto* sub =
      app.add_subcommand("bisect", "find the commit that made a benchmark slower, each step decided despite noise");
  sub->add_option("--good", args->good, "a revision where the benchmark is fast")->required()->type_name("REV");
  sub->add_option("--bad", args->bad, "a later revision where it is slow")->required()->type_name("REV");
  sub->add_option("--build", args->build, "shell command that builds a commit, run in its own work tree (e.g. make)")
      ->type_name("CMD");
  sub->add_option("--repo", args->repo, "the git repository (default: the current directory)")->type_name("DIR");
  sub->add_option("-c,--cpu", args->cpu, "the CPU every run is pinned to (default: the one `run` would pick)");
  sub->add_option("--max-runs", args->max_runs,
                  "runs of each side per step at most (default 60): a step still undecided then is skipped as noisy");
  sub->add_option("--confidence", args->confidence, "PERCENT: of each step's decision (default 99)")
      ->check(CLI::Range(50.0, 99.999));
  sub->add_option("--threshold", args->threshold,
                  "PERCENT: good and bad must differ by more than this, or there is nothing to bisect (default 1)")
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_option("-w,--warmup", args->warmup, "unmeasured runs of each side before each step (default 1)");
  sub->add_option("--json", args->json, "write the whole log (noisewatch.bisect/1) to FILE")->type_name("FILE");
  sub->add_option("--format", args->format, "the report: text (default, on stderr) or json (on stdout)");
  sub->add_option("-o,--output", args->output, "write the report to FILE")->type_name("FILE");
  sub->add_option("--cache", args->cache,
                  "where the work trees go (default ~/.cache/noisewatch/bisect-PID, removed at the end)")
      ->type_name("DIR");
  sub->add_flag("--keep-worktrees", args->keep, "leave the work trees (and their builds) in place");
  sub->add_option("--seed", args->seed, "the seed of the pairs' random order");
  sub->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  sub->footer(
      "Examples:\n"
      "  noisewatch bisect --good v1.2 --bad HEAD --build 'make -j8 bench' -- ./bench --size 4096\n"
      "  noisewatch bisect --good abc123 --bad main --build 'cc -O2 -o b b.c' --json log.json -- ./b\n"
      "\n"
      "Each commit is checked out with `git worktree add` under --cache and built there; your own work\n"
      "tree is never touched. good and bad must first be 'different, bad slower' (live compare);\n"
      "then each tested commit runs interleaved with good until a confidence sequence for the median\n"
      "of log(commit/good) lies above or below half of bad's difference (bad or good). A commit that\n"
      "does not build, fails, or stays undecided after --max-runs is skipped, never guessed. The\n"
      "first bad commit is confirmed against its parent.\n"
      "With git's own driver: git bisect run noisewatch compare --git-bisect 3 -- /path/to/good/bench ::: ./bench\n"
      "Exit 0 found, 1 no regression between good and bad, 2 undecided, 3 a build or benchmark failed\n"
      "at an endpoint, 125 own error.");
  sub->callback([&action, args] {
    auto bench = trailing_args();
    action = [args, bench] { return do_bisect(*args, bench); };
  });
}

}  // namespace nw::cli
