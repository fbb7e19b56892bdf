// SPDX-License-Identifier: Apache-2.0
#include "record/window_labels.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace nw {

std::string label_text(const nlohmann::json& label) {
  if (label.is_string()) return label.get<std::string>();
  if (label.is_null()) return "";
  return label.dump();
}

std::vector<std::string> measured_labels(const RunRecord& rec) {
  std::vector<std::string> out;
  for (const RunSample* r : rec.measured())
    if (std::string l = label_text(r->label); std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  return out;
}

RunRecord only_label(const RunRecord& rec, const std::string& label) {
  RunRecord out = rec;
  out.samples.clear();
  std::vector<std::string> seen;
  for (const auto& r : rec.samples) {
    const std::string l = label_text(r.label);
    if (l == label) out.samples.push_back(r);
    if (!l.empty() && std::find(seen.begin(), seen.end(), l) == seen.end()) seen.push_back(l);
  }
  if (out.samples.empty())
    throw Error(seen.empty() ? fmt::format("--label {}: the record's windows have no labels", label)
                             : fmt::format("--label {}: no window has that label; its labels: {}", label,
                                           fmt::join(seen, ", ")));
  out.summary = summarize(out);
  return out;
}

}  // namespace nw
