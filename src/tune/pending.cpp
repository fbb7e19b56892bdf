// SPDX-License-Identifier: Apache-2.0
#include "tune/pending.h"

#include <fmt/format.h>

namespace nw::tune {

std::string restore_command(const std::string& journal_path) {
  if (journal_path == "/run/noisewatch/tune.json") return "noisewatch tune restore";
  return fmt::format("noisewatch tune restore --journal {}", journal_path);
}

std::string pending_message(const JournalFile& jf, const Journal& j) {
  if (j.owner.other())
    return fmt::format(
        "noisewatch (pid {}, `{}`) is tuning this machine right now (journal {}): wait until it "
        "ends, it restores everything then",
        j.owner.pid, j.owner.command, jf.path());
  return fmt::format(
      "a tuning is already applied ({} value{} by `{}` at {}, journal {}): undo it first with "
      "`{}`",
      j.changes.size(), j.changes.size() == 1 ? "" : "s", j.owner.command.empty() ? "noisewatch tune" : j.owner.command,
      j.created, jf.path(), restore_command(jf.path()));
}

}  // namespace nw::tune
