// `noisewatch compare BASE NEW`: timing statistics plus a noise-profile diff -> verdict.
// Exit 0, or 1 when --fail-above is exceeded; 125 for unreadable or invalid input.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "common/errors.h"
#include "common/output.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/render.h"

namespace nw::cli {

namespace {

struct CompareArgs {
  std::string base, next, format = "text", output;
  double threshold = 1.0;
  double fail_above = -1;  // < 0: not given
};

int run_compare(const CompareArgs& a) {
  check_writable(a.output, "-o");
  compare::Options options;
  options.threshold_percent = a.threshold;
  if (a.fail_above >= 0) options.fail_above_percent = a.fail_above;
  auto base = compare::load_input(a.base);
  auto next = compare::load_input(a.next);
  auto result = compare::compare_inputs(base, next, options);
  write_document(render_as(compare::compare_formats(), a.format, result, false), a.output);
  return result.fail_above_exceeded() ? 1 : 0;
}

}  // namespace

void register_compare(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("compare", "compare two runs: is a regression the code, or noise?");
  auto args = std::make_shared<CompareArgs>();
  sub->add_option("BASE", args->base,
                  "baseline: noisewatch run report, Google Benchmark, hyperfine or pyperf JSON (or .json.gz)")
      ->required()
      ->type_name("FILE");
  sub->add_option("NEW", args->next, "the run to judge, same kinds of file as BASE")->required()->type_name("FILE");
  add_format_option(sub, args->format, format_names(compare::compare_formats()),
                    format_help(compare::compare_formats()));
  sub->add_option("-o,--output", args->output, "write the report to FILE instead of stdout")->type_name("FILE");
  sub->add_option("--threshold", args->threshold,
                  "PERCENT: smaller changes count as no-change even when significant (default 1)")
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_option("--fail-above", args->fail_above,
                  "PERCENT: exit 1 when NEW is significantly slower by more than this (with fewer than 2 "
                  "runs on a side: when the ratio alone is above it)")
      ->check(CLI::Range(0.0, 1e6));
  sub->footer(
      "Examples:\n"
      "  noisewatch compare base.json new.json --fail-above 2        # noisewatch run reports\n"
      "  noisewatch compare old/bench.json new/bench.json            # Google Benchmark --benchmark_out\n"
      "  noisewatch compare py311.json.gz py312.json.gz --format markdown   # pyperf, for a PR comment\n"
      "  noisewatch compare a.json b.json --format json -o cmp.json  # hyperfine --export-json\n"
      "\n"
      "Benchmarks are matched by name. Each is tested with Mann-Whitney U (exact up to 50 runs a side\n"
      "without ties), Holm-adjusted across the file; fewer than 2 runs on a side is 'inconclusive'.\n"
      "Exit 0, or 1 when --fail-above is exceeded; 125 for unreadable or invalid input.");
  sub->callback([&action, args] { action = [args]() -> int { return run_compare(*args); }; });
}

}  // namespace nw::cli
