// SPDX-License-Identifier: Apache-2.0
// From the bytes of an input file to JSON: what the benchmark tools write is not always plain
// UTF-8 RFC 8259 JSON. pyperf writes gzip when the name ends in .gz, Google Benchmark and Python
// write bare NaN/Infinity/-Infinity, and a shell redirect on Windows writes UTF-16.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace nw::compare {

// Refuses a decompressed input larger than this: far beyond any benchmark report, and a bound on
// what a small corrupt or hostile .gz can make us allocate.
inline constexpr size_t kMaxInflatedBytes = size_t(256) << 20;

// gzip (by its magic bytes, whatever the file is called) is inflated; an empty, whitespace-only
// or UTF-16 file is a one-line nw::Error naming `label`. Returns the JSON text.
std::string decode_input_bytes(std::string_view bytes, const std::string& label);

// nlohmann::json::parse, but also accepting the bare NaN, Infinity and -Infinity that Google
// Benchmark's JSON reporter and Python's json module write; they become the double values.
// Throws nw::Error naming `label` (and the byte) for text that is not JSON even so.
nlohmann::json parse_json_allowing_nonfinite(std::string_view text, const std::string& label);

}  // namespace nw::compare
