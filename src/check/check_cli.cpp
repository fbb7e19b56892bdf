#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_check(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("check", "pre-flight health check: is this machine fit to benchmark on?");
  sub->callback([&action] { action = [] () -> int { throw Error("'check' is not built yet"); }; });
}

}  // namespace nw::cli
