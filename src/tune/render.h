// SPDX-License-Identifier: Apache-2.0
// The text `tune` prints: what was applied, restored, and the state of every knob.
#pragma once
#include <string>

#include "tune/apply.h"
#include "tune/restore.h"
#include "tune/status.h"

namespace nw::tune {

// Every line of an apply (or --dry-run), the boot-parameter edit, and how to undo it.
std::string render_apply(const ApplyResult& r, const ApplyOptions& o, const std::string& journal_path);
// For `run --tune` and `tune prove`: "tuned 6 values: aslr-off, ...; not on this machine: ...".
std::string render_apply_brief(const ApplyResult& r);
// "irq-affinity: EPERM (...) on ...", one per knob that was refused.
std::vector<std::string> apply_failures(const ApplyResult& r);
std::string render_restore(const RestoreResult& r, const std::string& journal_path);
std::string render_status(const StatusResult& s, const std::string& journal_path);
// The catalogue: id, scope, title, what it removes, trade-off.
std::string render_catalogue();

}  // namespace nw::tune
