// What `compare` reads: timings per benchmark name, from a noisewatch run report or from the JSON
// that Google Benchmark, hyperfine and pyperf already write. Only noisewatch reports carry noise.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nw::compare {

enum class InputFormat { noisewatch, google_benchmark, hyperfine, pyperf };
std::string_view format_name(InputFormat f);

struct Benchmark {
  std::string name;
  std::vector<double> times_ns;       // one per measured repetition, in recorded order
  std::optional<RunRecord> record;    // noisewatch reports only: per-run noise, host, cpus
};

struct InputFile {
  std::string label;                  // the path as the user gave it
  InputFormat format = InputFormat::noisewatch;
  std::vector<Benchmark> benchmarks;  // never empty, names unique, every times_ns non-empty
  std::vector<std::string> notes;     // things worth telling the user (skipped rows, failed runs)
};

// Each parser throws nw::Error with a one-line reason (without the file name) when the JSON is
// not what it expects. They never return a benchmark without times.
std::vector<Benchmark> parse_google_benchmark(const nlohmann::json& j, std::vector<std::string>& notes);
std::vector<Benchmark> parse_hyperfine(const nlohmann::json& j, std::vector<std::string>& notes);
std::vector<Benchmark> parse_pyperf(const nlohmann::json& j, std::vector<std::string>& notes);
std::vector<Benchmark> parse_noisewatch(const nlohmann::json& j, std::vector<std::string>& notes);

// Recognises the format by shape and parses it; errors are prefixed with `label`.
InputFile parse_input(const nlohmann::json& j, const std::string& label);
InputFile parse_input_text(std::string_view text, const std::string& label);
InputFile load_input(const std::string& path);

// Shared by the parsers: a repetition time must be finite and > 0 to take a ratio of it.
double checked_time_ns(double value, double ns_per_unit, const std::string& where);

}  // namespace nw::compare
