// SPDX-License-Identifier: Apache-2.0
// The check of `noisewatch kernel --format json` that every kernel noisewatch is tested on must
// pass: every set-up loads, and every program keeps its margins to the verifier's limits (its
// deepest call chain's stack within 3/4 of 512 bytes, at most an eighth of the instruction limit
// processed). Shared by the host's end-to-end test and the guests' (tests/vm).
#pragma once
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nw::test {

inline void expect_programs_within_margins(const nlohmann::json& k) {
  ASSERT_EQ(k.value("schema", ""), "noisewatch.kernel/1");
  const auto margin = k["limits"]["stack_margin_bytes"].get<uint64_t>();
  EXPECT_LE(margin, k["limits"]["stack_bytes"].get<uint64_t>() * 3 / 4);
  ASSERT_FALSE(k["setups"].empty());
  for (const auto& s : k["setups"])
    EXPECT_TRUE(s["loaded"].get<bool>()) << s["configuration"] << ": " << s.value("refusal", "");
  size_t on_switch = 0;
  for (const auto& p : k["programs"]) {
    std::string what = p["program"].get<std::string>() + " (" + p["configuration"].get<std::string>() + ")";
    ASSERT_FALSE(p["stack_bytes"].is_null()) << what << ": no stack figure";
    EXPECT_LE(p["stack_bytes"].get<uint64_t>(), margin) << what;
    EXPECT_GT(p["insns_processed"].get<uint64_t>(), 0u) << what;
    EXPECT_LE(p["insns_processed"].get<uint64_t>() * 8, p["insns_limit"].get<uint64_t>()) << what;
    EXPECT_TRUE(p["margin_problems"].empty()) << what << ": " << p["margin_problems"].dump();
    on_switch += p["program"] == "on_switch";
  }
  // The switch program is in every set-up.
  EXPECT_EQ(on_switch, k["setups"].size());
}

}  // namespace nw::test
