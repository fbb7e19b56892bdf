// SPDX-License-Identifier: Apache-2.0
// Window labels in reports: a record whose windows carry labels (--windows gbench names each
// repetition after its benchmark; "begin LABEL" and USDT arguments label marked windows) gets a
// table per label and, when they are several benchmarks, one report per label (analyze():
// Analysis::by_label); `report --label` analyses one label's windows alone (record/window_labels.h).
#pragma once
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
// The labels reported one block each, in the order they first appear; empty when the measured
// windows are one set. Windows of two labels or more are several benchmarks when the harness names
// them (--windows gbench: even one repetition each), when text labels repeat ("begin BM_a"), or
// when a number labels two windows of one process run (numbers that count each run's windows,
// "begin 0", "begin 1", ..., are one set).
std::vector<std::string> split_labels(const RunRecord& rec);
// A label as the reports print it: "(none)" for windows without one.
inline std::string shown_label(const std::string& label) { return label.empty() ? "(none)" : label; }
// "benchmarks" when the harness names the labels, else "labels": how the reports count them.
std::string label_noun(const RunRecord& rec);

}  // namespace nw::report
