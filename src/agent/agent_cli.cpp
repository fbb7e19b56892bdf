#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_agent(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("agent", "serve noise and check metrics for Prometheus");
  sub->callback([&action] { action = [] () -> int { throw Error("'agent' is not built yet"); }; });
}

}  // namespace nw::cli
