#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_events(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("events", "list the perf events libpfm4 knows on this machine");
  sub->callback([&action] { action = [] () -> int { throw Error("'events' is not built yet"); }; });
}

}  // namespace nw::cli
