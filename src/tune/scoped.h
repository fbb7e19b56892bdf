// SPDX-License-Identifier: Apache-2.0
// A tuning that lasts as long as one noisewatch command (`run --tune`, `tune prove`): applied on
// the live machine, restored when the command ends, on an exception, or (after a kill -9) by the
// next `tune restore` or the next command that tunes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/apply.h"
#include "tune/journal.h"

namespace nw::tune {

// Before anything runs: a journal left by a noisewatch that was killed is restored (said on
// stderr); one from `tune apply` or from a noisewatch still running is refused (nw::Error),
// never stacked upon.
void recover_pending(const JournalFile& journal, bool quiet);

class ScopedTuning {
 public:
  // Applies `selection` for `cpus`, reporting on stderr. Throws nw::Error (nothing left applied).
  ScopedTuning(const std::string& journal_path, const std::vector<int>& cpus, Selection selection, std::string owner,
               bool quiet);
  ~ScopedTuning();  // restores, when restore() was not called
  ScopedTuning(const ScopedTuning&) = delete;
  ScopedTuning& operator=(const ScopedTuning&) = delete;

  const ApplyResult& applied() const { return applied_; }
  // What the record keeps: the journal, the values changed and the knobs that failed.
  nlohmann::json summary() const;
  // Puts everything back, reporting on stderr; false when a value could not be restored (the
  // journal then keeps it). Only the first call does anything.
  bool restore();

 private:
  JournalFile journal_;
  ApplyResult applied_;
  std::vector<Change> changes_;
  bool quiet_;
  bool restored_ = false;
};

// The journal a tuning command uses: --journal FILE, else /run/noisewatch/tune.json.
std::string journal_path_or_default(const std::string& option);

}  // namespace nw::tune
