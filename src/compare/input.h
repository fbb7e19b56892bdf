// SPDX-License-Identifier: Apache-2.0
// What `compare` reads: timings per benchmark name, from a noisewatch run report or from the JSON
// that Google Benchmark, hyperfine and pyperf already write (gzip-compressed or not, with the
// NaN/Infinity literals those tools emit). Only noisewatch reports carry noise.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nw::compare {

enum class InputFormat { noisewatch, google_benchmark, hyperfine, pyperf };
std::string_view format_name(InputFormat f);

struct Benchmark {
  std::string name;
  std::vector<double> times_ns;     // one per measured repetition, in recorded order
  std::optional<RunRecord> record;  // noisewatch reports only: per-run noise, host, cpus
  // CPU time (user + system) per repetition where the input has it for every repetition, or only
  // its mean (hyperfine); both empty when the input has none.
  std::vector<double> cpu_ns;
  std::optional<double> cpu_mean_ns;
  std::string cpu_basis;  // the input's name for it: "cpu_time", "user+sys", ...
  // Each measured pyperf worker run's `duration`, as pyperf timed it inside the worker: from a
  // pyperf JSON (its runs with values), or from a --windows pyperf record (its measured windows'
  // harness_duration_ns). Empty unless every measured run has one. pyperf_measures.h says why.
  std::vector<double> run_durations_ns;
};

// One line of the machine description a foreign format carries (Google Benchmark's context,
// pyperf's metadata): compared between BASE and NEW to name what differs.
struct HostField {
  std::string field, value;
  double tolerance = 0;  // numeric fields: relative difference that still counts as the same
};

struct InputFile {
  std::string label;  // the path as the user gave it
  InputFormat format = InputFormat::noisewatch;
  std::vector<Benchmark> benchmarks;  // never empty, names unique, every times_ns non-empty
  std::vector<std::string> notes;     // things worth telling the user (skipped rows, failed runs)
  std::vector<HostField> host;        // foreign formats; noisewatch reports keep theirs in the record
  bool debug_build = false;           // the benchmark library says it was built for debugging
};

// Each parser throws nw::Error with a one-line reason (without the file name) when the JSON is
// not what it expects. They never return a benchmark without times.
std::vector<Benchmark> parse_google_benchmark(const nlohmann::json& j, InputFile& in);
std::vector<Benchmark> parse_hyperfine(const nlohmann::json& j, InputFile& in);
std::vector<Benchmark> parse_pyperf(const nlohmann::json& j, InputFile& in);
std::vector<Benchmark> parse_noisewatch(const nlohmann::json& j, InputFile& in);

// Recognises the format by shape and parses it; errors are prefixed with `label`.
InputFile parse_input(const nlohmann::json& j, const std::string& label);
// The bytes of a file as written: gzip, empty and UTF-16 files are recognised (input_text.h).
InputFile parse_input_text(std::string_view bytes, const std::string& label);
InputFile load_input(const std::string& path);

// Shared by the parsers: a repetition time must be finite and > 0 to take a ratio of it.
double checked_time_ns(double value, double ns_per_unit, const std::string& where);

// "a, b, c and 4 more": names in a one-line message, at most `shown` of them.
std::string join_names(const std::vector<std::string>& names, size_t shown = 5);

// "--benchmark_repetitions=20", "--runs 20", ...: how to get more repetitions from the tool that
// wrote a file of this format.
std::string rerun_hint(InputFormat f, size_t runs);

}  // namespace nw::compare
