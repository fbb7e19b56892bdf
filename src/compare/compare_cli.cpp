#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_compare(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("compare", "compare two runs: is a regression the code, or noise?");
  sub->callback([&action] { action = [] () -> int { throw Error("'compare' is not built yet"); }; });
}

}  // namespace nw::cli
