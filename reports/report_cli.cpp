// `noisewatch report RUN.json [--format F] [-o FILE]`: re-render a saved run.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/errors.h"
#include "reports/report.h"

namespace nw::cli {

namespace {

struct ReportOptions {
  std::string input, format = "text", output;
};

int run_report(const ReportOptions& o) {
  auto format = report::parse_format(o.format);
  RunRecord rec;
  try {
    rec = load_run_record(o.input);
  } catch (const std::runtime_error& e) {
    throw Error(fmt::format("{} (pass a RUN.json written by `noisewatch --json`)", e.what()));
  }
  bool to_file = !o.output.empty() && o.output != "-";
  // Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org).
  bool color = !to_file && isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  auto text = report::render(rec, format, color);
  if (!to_file) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(text.data(), std::streamsize(text.size())) || !out.flush())
    throw Error(fmt::format("cannot write {}: check the directory exists and is writable", o.output));
  return 0;
}

}  // namespace

void register_report(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ReportOptions>();
  auto* sub = app.add_subcommand("report", "re-render a saved run report (RUN.json) as text, json, markdown or html");
  sub->add_option("RUN.json", opts->input, "run report written by `noisewatch --json FILE`")->required();
  sub->add_option("--format", opts->format, "text (default) | json | markdown | html");
  sub->add_option("-o,--output", opts->output, "write the report to FILE instead of stdout");
  sub->callback([&action, opts] { action = [opts]() -> int { return run_report(*opts); }; });
}

}  // namespace nw::cli
