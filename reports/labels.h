// Window labels in reports: a record whose windows carry labels (--windows gbench names each
// repetition after its benchmark; "begin LABEL" and USDT arguments label marked windows) gets a
// table per label, a warning when windows of several labels are analysed together, and
// `report --label` to analyse one label's windows alone (record/window_labels.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "record/window_labels.h"  // label_text, only_label

namespace nw::report {

struct LabelRow {
  std::string label;
  int windows = 0;  // measured ones
  double median_ns = 0, cv = 0;
  double mean_stolen_ns = 0;  // what the machine took from each, on average
};

// The measured windows by label, in the order the labels first appear; empty when none has one,
// or when no label is on two windows (labels that number the windows say nothing in common).
std::vector<LabelRow> label_rows(const RunRecord& rec);
// The warning for windows of several labels analysed as one set of repetitions, if they are.
std::optional<std::string> mixed_labels_warning(const std::vector<LabelRow>& rows);

}  // namespace nw::report
