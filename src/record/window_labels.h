// SPDX-License-Identifier: Apache-2.0
// Window labels of a record: a label as text, and the record cut down to one label's windows.
// Shared by the reports (a table by label, `report --label`) and `compare` (Google Benchmark's
// repetitions compared by name).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nw {

// A label as reports show it: text as it is, a number in decimal, "" for none.
std::string label_text(const nlohmann::json& label);
// The labels of the measured windows, in the order they first appear ("" for none).
std::vector<std::string> measured_labels(const RunRecord& rec);
// The record with only the windows labelled `label` (warm-ups too); throws nw::Error naming the
// labels it has when none is.
RunRecord only_label(const RunRecord& rec, const std::string& label);

}  // namespace nw
