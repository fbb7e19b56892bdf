// SPDX-License-Identifier: Apache-2.0
// Format detection and file loading for `compare`; the per-format parsers live in input_*.cpp.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"
#include "compare/input.h"
#include "compare/input_text.h"

namespace nw::compare {

using nlohmann::json;

std::string_view format_name(InputFormat f) {
  switch (f) {
    case InputFormat::noisewatch:
      return "noisewatch";
    case InputFormat::google_benchmark:
      return "google-benchmark";
    case InputFormat::hyperfine:
      return "hyperfine";
    case InputFormat::pyperf:
      return "pyperf";
  }
  return "unknown";
}

double checked_time_ns(double value, double ns_per_unit, const std::string& where) {
  double ns = value * ns_per_unit;
  if (!std::isfinite(ns) || ns <= 0)
    throw Error(fmt::format("{} is {}: a repetition time must be a positive number", where, value));
  return ns;
}

namespace {

const char* kUnknownShape = "is neither a noisewatch run report nor Google Benchmark, hyperfine or pyperf JSON";

bool array_of_objects_with(const json& j, const char* key, const char* field) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->empty()) return false;
  const json& first = it->front();
  return first.is_object() && first.contains(field);
}

InputFormat detect(const json& j, const std::string& label) {
  if (!j.is_object()) throw Error(fmt::format("{} {} (top level is not an object)", label, kUnknownShape));
  if (auto it = j.find("schema"); it != j.end()) {
    std::string schema = it->is_string() ? it->get<std::string>() : it->dump();
    if (schema.rfind("noisewatch.run/", 0) == 0) return InputFormat::noisewatch;
    throw Error(
        fmt::format("{} has schema {}: compare needs run reports, written by "
                    "`noisewatch --json FILE -- CMD`",
                    label, schema));
  }
  if (array_of_objects_with(j, "results", "command")) return InputFormat::hyperfine;
  if (j.contains("benchmarks") && j["benchmarks"].is_array()) {
    if (j.contains("context") || array_of_objects_with(j, "benchmarks", "real_time"))
      return InputFormat::google_benchmark;
    if (array_of_objects_with(j, "benchmarks", "runs")) return InputFormat::pyperf;
  }
  throw Error(fmt::format("{} {}", label, kUnknownShape));
}

}  // namespace

InputFile parse_input(const json& j, const std::string& label) {
  InputFile in;
  in.label = label;
  in.format = detect(j, label);
  try {
    switch (in.format) {
      case InputFormat::noisewatch:
        in.benchmarks = parse_noisewatch(j, in);
        break;
      case InputFormat::google_benchmark:
        in.benchmarks = parse_google_benchmark(j, in);
        break;
      case InputFormat::hyperfine:
        in.benchmarks = parse_hyperfine(j, in);
        break;
      case InputFormat::pyperf:
        in.benchmarks = parse_pyperf(j, in);
        break;
    }
  } catch (const Error& e) {
    throw Error(fmt::format("{} ({} JSON): {}", label, format_name(in.format), e.what()));
  } catch (const std::exception& e) {
    // A field of an unexpected type deep inside (nlohmann type_error, or the run record reader).
    throw Error(fmt::format("{} ({} JSON): {}", label, format_name(in.format), e.what()));
  }
  if (in.benchmarks.empty())
    throw Error(fmt::format("{} ({} JSON) contains no benchmark with measured repetitions{}", label,
                            format_name(in.format), in.notes.empty() ? "" : ": " + in.notes.front()));
  std::set<std::string> seen;
  for (const auto& b : in.benchmarks) {
    if (b.times_ns.empty()) throw Error(fmt::format("{}: benchmark \"{}\" has no measured repetitions", label, b.name));
    if (!seen.insert(b.name).second)
      throw Error(fmt::format("{}: benchmark \"{}\" appears twice; compare cannot tell which to use", label, b.name));
  }
  return in;
}

InputFile parse_input_text(std::string_view bytes, const std::string& label) {
  return parse_input(parse_json_allowing_nonfinite(decode_input_bytes(bytes, label), label), label);
}

InputFile load_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  return parse_input_text(bytes.str(), path);
}

std::string join_names(const std::vector<std::string>& names, size_t shown) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

std::string rerun_hint(InputFormat f, size_t runs) {
  switch (f) {
    case InputFormat::noisewatch:
      return fmt::format("--runs {}", runs);
    case InputFormat::google_benchmark:
      return fmt::format("--benchmark_repetitions={}", runs);
    case InputFormat::hyperfine:
      return fmt::format("--runs {}", runs);
    // pyperf's values are processes x values per process; its defaults are 20 x 3.
    case InputFormat::pyperf:
      return fmt::format("--processes {} --values 3", runs);
  }
  return {};
}

}  // namespace nw::compare
