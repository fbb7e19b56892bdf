// SPDX-License-Identifier: Apache-2.0
// The ground-truth log run mode writes (JSON lines: {"setup"}, one {"rep"} per repetition of the
// benchmark, {"end"}), paired with the record's runs for scoring.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nw::inject {

struct Truth {
  nlohmann::json setup, end;
  std::map<int, nlohmann::json> reps;  // by repetition index, warm-ups included
};

// Throws std::runtime_error naming the file and the line when it is not such a log.
Truth load_truth(const std::string& path);

// One measured run of the record with what the injector did during it.
struct RunTruth {
  const RunSample* run;
  const nlohmann::json* truth;  // never null: runs without a truth line are not paired
  bool injected;
};

}  // namespace nw::inject
