// SPDX-License-Identifier: Apache-2.0
// A run record's figures as tests read them (shared by tests/e2e and tests/vm).
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace nw::e2e {

// A source's time or count in one run of a record (0 when the source did not show up).
inline uint64_t run_source_field(const nlohmann::json& run, const std::string& source, const char* field) {
  for (const auto& n : run["noise"])
    if (n["source"] == source) return n[field].get<uint64_t>();
  return 0;
}
inline uint64_t run_source_time(const nlohmann::json& run, const std::string& source) {
  return run_source_field(run, source, "time_ns");
}
inline uint64_t run_source_count(const nlohmann::json& run, const std::string& source) {
  return run_source_field(run, source, "count");
}

}  // namespace nw::e2e
