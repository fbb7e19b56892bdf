// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune apply`: each selected runtime knob is planned on the machine as it is just
// then, every change goes into the journal (fsync'ed) before the file is written, and failures
// are reported per knob without stopping the others. Boot parameters are printed, not applied.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "knobs/knob.h"
#include "tune/journal.h"
#include "tune/selection.h"
#include "tune/services.h"

namespace nw::sys {
class Sysroot;
}

namespace nw::tune {

enum class Outcome {
  applied,  // every value that needed changing was changed
  already,  // nothing needed changing
  absent,   // the knob does not exist on this machine
  partial,  // some values changed, some were refused
  failed,   // every change was refused
  planned,  // --dry-run: this would change
};
std::string_view outcome_name(Outcome o);

struct KnobResult {
  const knobs::Knob* knob = nullptr;
  Outcome outcome = Outcome::already;
  std::vector<std::string> details;  // "/proc/sys/kernel/randomize_va_space: 2 -> 0"
  std::string message;               // why absent, what failed, or a note
  int changed = 0, unchanged = 0, failed = 0;
  int deferred = 0;  // written, but the kernel has not acted on it yet (Write::effective)
};

struct ApplyOptions {
  knobs::Targets targets;
  Selection selection;
  bool dry_run = false;
  std::string owner = "tune apply";
  // For tests: runs after a change is in the journal and before its write (it may throw or
  // _exit, as a crash between two writes would).
  std::function<void(const Change&)> before_write;
};

struct ApplyResult {
  std::vector<KnobResult> knobs;
  std::vector<const knobs::Knob*> boot_missing;  // boot parameters not on the kernel command line
  std::vector<std::string> boot_edit;            // the edit that sets them
  int changes = 0;                               // values changed (= journal entries)
  bool journal_written = false;
  bool any_failed() const;
};

// Throws nw::Error when a journal is already pending (restore it first) or cannot be written.
ApplyResult apply(const sys::Sysroot& root, const JournalFile& journal, Services& services, const ApplyOptions& o);

}  // namespace nw::tune
