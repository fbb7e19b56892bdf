// SPDX-License-Identifier: Apache-2.0
#include "compare/pyperf_measures.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::compare {

bool is_pyperf_windows_record(const InputFile& in) {
  if (in.format != InputFormat::noisewatch || in.benchmarks.empty() || !in.benchmarks[0].record) return false;
  const auto& h = in.benchmarks[0].record->windows_harness;
  return h && h->name == "pyperf";
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The median of what a record's windows hold beyond pyperf's duration of their run.
std::optional<double> median_outside_ns(const InputFile& rec) {
  std::vector<double> outside;
  for (const auto& b : rec.benchmarks)
    if (b.run_durations_ns.size() == b.times_ns.size())
      for (size_t k = 0; k < b.times_ns.size(); ++k) outside.push_back(b.times_ns[k] - b.run_durations_ns[k]);
  if (outside.empty()) return std::nullopt;
  return median(outside);
}

}  // namespace

void align_pyperf_measures(InputFile& base, InputFile& next, std::vector<std::string>& warnings) {
  const bool base_rec = is_pyperf_windows_record(base), next_rec = is_pyperf_windows_record(next);
  if (base_rec && next_rec) {
    auto b = median_outside_ns(base), n = median_outside_ns(next);
    warnings.push_back(fmt::format(
        "BASE and NEW are --windows pyperf records: their windows are whole pyperf workers, the interpreter's "
        "start-up and pyperf's import included{}, so a change in the benchmarked code shows diluted in them",
        b && n ? fmt::format(" ({:.1f} ms and {:.1f} ms a window, median, beyond pyperf's duration of the run)",
                             *b / 1e6, *n / 1e6)
               : ""));
    return;
  }
  const bool json_rec =
      (base.format == InputFormat::pyperf && next_rec) || (base_rec && next.format == InputFormat::pyperf);
  if (!json_rec) return;
  std::map<std::string, Benchmark*> others;
  for (auto& b : next.benchmarks) others[b.name] = &b;
  const auto outside = median_outside_ns(base_rec ? base : next);
  size_t aligned = 0;
  for (auto& b : base.benchmarks) {
    auto it = others.find(b.name);
    if (it == others.end()) continue;
    for (auto* side : {&b, it->second}) {
      if (side->run_durations_ns.empty())
        throw Error(fmt::format(
            "benchmark \"{}\": {} has no pyperf duration for its runs, so it cannot be compared with {}: pyperf's "
            "values "
            "are per loop, a --windows pyperf window is a whole worker process. {}",
            b.name, side == &b ? "BASE" : "NEW", side == &b ? "NEW" : "BASE",
            (side == &b) == base_rec
                ? "Run the record again with pyperf's -o FILE in the command (noisewatch reads each run's duration "
                  "from it), or compare it with another --windows pyperf record"
                : "Compare pyperf's JSON of a pyperf version that records each run's duration (1.0 and later)"));
      side->times_ns = side->run_durations_ns;
    }
    ++aligned;
  }
  if (aligned)
    warnings.push_back(fmt::format(
        "{} is pyperf's JSON and {} a --windows pyperf record: compared on each worker run's duration as pyperf timed "
        "it inside the worker (its warm-ups and values; in the JSON's run metadata and the windows' "
        "harness_duration_ns), not on pyperf's values per loop nor on the windows' wall time, which also holds "
        "the interpreter's start-up{}",
        base_rec ? "NEW" : "BASE", base_rec ? "BASE" : "NEW",
        outside ? fmt::format(" ({:.1f} ms a window, median)", *outside / 1e6) : ""));
}

}  // namespace nw::compare
