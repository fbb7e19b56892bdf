// SPDX-License-Identifier: Apache-2.0
// A writer for the Prometheus text exposition format 0.0.4: HELP and TYPE once per family,
// escaped label values and help text, Go-compatible float spellings.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nw {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

// Prometheus rejects a whole scrape over one label value that is not UTF-8, and a task's comm
// is any 15 bytes (often a multi-byte character cut in half): invalid sequences become U+FFFD.
std::string valid_utf8(std::string_view v);
// Label values: made valid UTF-8; backslash, double quote and newline are escaped.
std::string escape_label_value(std::string_view v);
// HELP text: backslash and newline are escaped (quotes are not, per the format).
std::string escape_help(std::string_view v);
// Shortest round-trip spelling; NaN, +Inf, -Inf as Prometheus spells them.
std::string format_value(double v);

class Exposition {
 public:
  // Starts a metric family; every sample() until the next family() belongs to it. A family
  // without samples writes nothing.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const Labels& labels, double value);
  void sample_int(std::string_view name, const Labels& labels, uint64_t value);
  // Text already in the format (another renderer's families).
  void append(std::string_view text) { out_ += text; }
  const std::string& str() const { return out_; }

 private:
  void name_and_labels(std::string_view name, const Labels& labels);
  std::string out_, pending_header_;
};

}  // namespace nw
