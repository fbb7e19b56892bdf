#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_snapshot(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("snapshot", "copy the /proc and /sys files that check reads into DIR");
  sub->callback([&action] { action = [] () -> int { throw Error("'snapshot' is not built yet"); }; });
}

}  // namespace nw::cli
