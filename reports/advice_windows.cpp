// SPDX-License-Identifier: Apache-2.0
#include "reports/advice_windows.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "common/shell_words.h"
#include "knobs/catalogue.h"
#include "reports/advice.h"

namespace nw::report {

bool is_windows_record(const RunRecord& rec) {
  return rec.warmup_windows.has_value() ||
         std::any_of(rec.samples.begin(), rec.samples.end(), [](const RunSample& r) { return r.window.has_value(); });
}

namespace {

struct RepetitionOption {
  const char* harness;
  std::vector<std::string> replaced;  // options that set the count (each with its value)
  std::string option;                 // what is set instead
  bool after_program;                 // inserted after the harness's program; else appended
};

const RepetitionOption kRepetitionOptions[] = {
    {"gbench", {"--benchmark_repetitions"}, "--benchmark_repetitions", false},
    {"hyperfine", {"--runs", "-r", "--min-runs", "-m", "--max-runs", "-M"}, "--runs", true},
    {"pyperf", {"--processes", "-p"}, "--processes", false},
};

}  // namespace

std::optional<std::vector<std::string>> with_harness_repetitions(const std::string& harness,
                                                                 std::vector<std::string> command, int n) {
  const auto* o = std::find_if(std::begin(kRepetitionOptions), std::end(kRepetitionOptions),
                               [&](const RepetitionOption& x) { return harness == x.harness; });
  if (o == std::end(kRepetitionOptions) || command.empty()) return std::nullopt;
  std::vector<std::string> out{command.front()};
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    bool drop = false;
    for (const auto& r : o->replaced) {
      if (a == r && i + 1 < command.size()) {
        drop = true;
        ++i;  // its value
      } else if (a.starts_with(r + "=")) {
        drop = true;
      }
      if (drop) break;
    }
    if (!drop) out.push_back(a);
  }
  if (o->after_program) {
    out.insert(out.begin() + 1, {o->option, std::to_string(n)});
  } else if (harness == "gbench") {
    out.push_back(o->option + "=" + std::to_string(n));  // Google Benchmark's flags take `=` only
  } else {
    out.insert(out.end(), {o->option, std::to_string(n)});
  }
  return out;
}

void adapt_to_windows(const RunRecord& rec, std::vector<Recommendation>& recs) {
  if (!is_windows_record(rec)) return;
  std::set<int> process_runs;
  for (const auto& r : rec.samples)
    if (r.window) process_runs.insert(r.process_run.value_or(0));
  const double per_process =
      process_runs.empty() ? 1.0 : std::max(1.0, double(rec.measured().size()) / double(process_runs.size()));
  static const std::regex runs_option("--runs (\\d+)"), warmup_option("--warmup (\\d+)");
  // How this record's windows were cut, as the option that cuts them again.
  std::string mode = "--windows";
  if (rec.windows_exec) mode = "--windows-exec " + shell_quote(*rec.windows_exec);
  if (rec.windows_at) mode = "--windows-at " + shell_quote(rec.windows_at->spec);
  if (rec.windows_harness) mode = "--windows " + shell_quote(rec.windows_harness->name);
  const std::string harness = rec.windows_harness ? rec.windows_harness->name : "";
  for (auto& r : recs) {
    for (auto& cmd : r.commands) {
      // `noisewatch [options] -- CMD`, not its other subcommands (check, tune, ...). Only
      // noisewatch's own options change: the benchmark's (hyperfine --runs 20) stay as they are,
      // but for more repetitions of a harness, which are its own.
      if (!cmd.starts_with("noisewatch --")) continue;
      const size_t sep = cmd.find(" -- ");
      std::string head = cmd.substr(0, sep), tail = sep == std::string::npos ? "" : cmd.substr(sep);
      std::smatch m;
      const bool more_runs = std::regex_search(head, m, runs_option);
      if (more_runs && r.id == "more-runs")
        if (auto again = with_harness_repetitions(harness, rec.command, std::stoi(m[1]))) {
          cmd = fmt::format("noisewatch {} -- {}", mode, shell_command(*again));
          if (r.title.starts_with("Measure more runs")) r.title.replace(13, 4, "repetitions");
          continue;
        }
      if (more_runs) {
        // A number of windows wanted: as process runs of this benchmark's windows each.
        int wanted = std::stoi(m[1]);
        head.replace(size_t(m.position(0)), size_t(m.length(0)),
                     fmt::format("--runs {}", std::max(1, int(std::ceil(double(wanted) / per_process)))));
      }
      if (std::regex_search(head, m, warmup_option))
        head.replace(size_t(m.position(0)), size_t(m.length(0)), "--warmup-windows " + m[1].str());
      head.insert(std::string("noisewatch").size(), " " + mode);
      cmd = head + tail;
    }
    if (r.id == "more-warmup") r.title = "Add warm-up windows: the first measured window was slow";
  }
}

}  // namespace nw::report
