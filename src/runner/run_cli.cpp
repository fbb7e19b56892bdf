#include "cli/commands.h"
#include "cli/errors.h"
namespace nw::cli {
void register_run(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("run", "run a benchmark and explain its variance");
  sub->callback([&action] { action = [] () -> int { throw Error("'run' is not built yet"); }; });
}
}  // namespace nw::cli
