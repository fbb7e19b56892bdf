#include "cli/commands.h"
#include "cli/errors.h"

namespace nw::cli {

void register_report(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("report", "re-render a saved run report (RUN.json) as text, json, markdown or html");
  sub->callback([&action] { action = [] () -> int { throw Error("'report' is not built yet"); }; });
}

}  // namespace nw::cli
