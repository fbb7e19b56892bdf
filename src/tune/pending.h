// SPDX-License-Identifier: Apache-2.0
// A journal on disk means a tuning is in place: who put it there, and what to do about it.
#pragma once
#include <string>

#include "tune/journal.h"

namespace nw::tune {

// The command that restores this journal: "noisewatch tune restore [--journal FILE]".
std::string restore_command(const std::string& journal_path);

// The one-line reason a new tuning cannot start on top of the journal `j` at `jf`.
std::string pending_message(const JournalFile& jf, const Journal& j);

}  // namespace nw::tune
