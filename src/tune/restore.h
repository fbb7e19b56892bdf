// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune restore`: every value of the journal back, byte for byte, in reverse order;
// the journal goes once everything is back.
#pragma once
#include <string>
#include <vector>

#include "tune/journal.h"
#include "tune/services.h"

namespace nw::tune {

struct RestoreResult {
  bool nothing = false;               // there was no journal
  int restored = 0;                   // values written back
  int unchanged = 0;                  // already as they were (e.g. a write that never happened)
  std::vector<std::string> details;   // "/proc/sys/kernel/randomize_va_space: 0 -> 2"
  std::vector<std::string> failures;  // one line per value that could not be put back
  Journal journal;                    // what was restored
};

struct RestoreOptions {
  std::string sysroot;  // --sysroot given to restore, "" when none (the journal says where)
  bool sysroot_given = false;
};

// Throws nw::Error when the journal cannot be read, belongs to another root, or to another
// noisewatch that is still running (it restores when it ends). Failures to restore a value are in the result; the
// journal then keeps exactly those values so that `tune restore` can be run again.
RestoreResult restore(const JournalFile& journal, const RestoreOptions& o, Services* services = nullptr);

}  // namespace nw::tune
