// SPDX-License-Identifier: Apache-2.0
// hyperfine --export-json: results[] with the command line and every run's wall time in seconds;
// CPU time only as means over the runs (user, system), so it gives a ratio but no test.
#include <cmath>

#include <fmt/format.h>

#include "common/errors.h"
#include "compare/input.h"

namespace nw::compare {

using nlohmann::json;

std::vector<Benchmark> parse_hyperfine(const json& j, InputFile& in) {
  const json& results = j.at("results");
  std::vector<Benchmark> out;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    std::string where = fmt::format("results[{}]", i);
    if (!r.is_object()) throw Error(where + " is not an object");
    if (!r.contains("command") || !r["command"].is_string()) throw Error(where + " has no \"command\" string");
    auto times = r.find("times");
    if (times == r.end() || !times->is_array())
      throw Error(
          fmt::format("{} (\"{}\") has no \"times\" array: export with a hyperfine that records "
                      "every run (--export-json)",
                      where, r["command"].get<std::string>()));
    Benchmark b{r["command"].get<std::string>(), {}, std::nullopt, {}, std::nullopt, "user+system means"};
    for (size_t k = 0; k < times->size(); ++k) {
      const json& t = (*times)[k];
      std::string at = fmt::format("{}.times[{}]", where, k);
      if (!t.is_number()) throw Error(at + " is not a number");
      b.times_ns.push_back(checked_time_ns(t.get<double>(), 1e9, at));
    }
    auto user = r.find("user"), system = r.find("system");
    if (user != r.end() && system != r.end() && user->is_number() && system->is_number()) {
      double cpu = (user->get<double>() + system->get<double>()) * 1e9;
      if (std::isfinite(cpu) && cpu > 0) b.cpu_mean_ns = cpu;
    }
    if (auto codes = r.find("exit_codes"); codes != r.end() && codes->is_array()) {
      int failed = 0;
      for (const auto& c : *codes)
        if (!c.is_number_integer() || c.get<long long>() != 0) ++failed;
      if (failed > 0) in.notes.push_back(fmt::format("\"{}\": {} run(s) exited non-zero", b.name, failed));
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace nw::compare
