// SPDX-License-Identifier: Apache-2.0
// `noisewatch report RUN.json [--format F] [-o FILE] [--label L]`: re-render a saved run.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "common/errors.h"
#include "common/output.h"
#include "reports/labels.h"
#include "reports/report.h"

namespace nw::cli {

namespace {

struct ReportOptions {
  std::string input, format = "text", output, label;
};

int run_report(const ReportOptions& o) {
  auto format = report::parse_format(o.format);
  check_writable(o.output, "-o");
  RunRecord rec;
  try {
    rec = load_run_record(o.input);
  } catch (const std::runtime_error& e) {
    throw Error(fmt::format("{} (pass a RUN.json written by `noisewatch --json`)", e.what()));
  }
  if (!o.label.empty()) rec = only_label(rec, o.label);
  bool to_file = !o.output.empty() && o.output != "-";
  write_document(report::render(rec, format, !to_file && use_color(stdout)), o.output);
  return 0;
}

}  // namespace

void register_report(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ReportOptions>();
  auto* sub = app.add_subcommand("report", "re-render a saved run report (RUN.json) as " + report::format_list());
  sub->add_option("RUN.json", opts->input, "run report written by `noisewatch --json FILE`")
      ->required()
      ->type_name("FILE");
  add_format_option(sub, opts->format, report::format_names(), report::format_choices());
  sub->add_option("-o,--output", opts->output, "write the report to FILE instead of stdout")->type_name("FILE");
  sub->add_option("--label", opts->label,
                  "analyse only the windows with this label (a Google Benchmark name with --windows gbench, or a "
                  "\"begin LABEL\" marker's), e.g. --label BM_Sort/1024");
  sub->callback([&action, opts] { action = [opts]() -> int { return run_report(*opts); }; });
}

}  // namespace nw::cli
