// SPDX-License-Identifier: Apache-2.0
// Where `run` writes its report(s): the --format report (stderr by default, so the benchmark's
// stdout stays clean; stdout when --format is given; a file with -o) and the --json record.
#pragma once
#include <string>

#include "common/output.h"
#include "record/run_record.h"

namespace nw::runner {

struct OutputPlan {
  std::string format = "text";
  bool format_given = false;
  std::string output;  // file for the --format report
  std::string json;    // file for the record, "-" = stdout
};

// Validates the options (unknown format, two outputs to stdout) before anything runs.
OutputPlan plan_output(const std::string& format, const std::string& output, const std::string& json);

// Runs the report engine on the record and writes everything asked for. Throws nw::Error when
// a file cannot be written (after trying every output, so nothing else is lost).
void write_outputs(RunRecord& rec, const OutputPlan& out);

// write_file and check_writable: common/output.h.

}  // namespace nw::runner
