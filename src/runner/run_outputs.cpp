// SPDX-License-Identifier: Apache-2.0
#include "runner/run_outputs.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/output.h"
#include "reports/report.h"

namespace nw::runner {

OutputPlan plan_output(const std::string& format, const std::string& output, const std::string& json) {
  OutputPlan p;
  p.format_given = !format.empty();
  p.format = format.empty() ? "text" : format;
  report::parse_format(p.format);  // throws on an unknown name
  p.output = output;
  p.json = json;
  if (p.json == "-" && p.format_given && p.output.empty())
    throw Error("--json - and --format both want stdout: send one of them to a file (-o FILE or --json FILE)");
  // A record that cannot be written is lost after every repetition ran: say so before any.
  if (!p.json.empty() && p.json != "-") check_writable(p.json, "--json");
  if (!p.output.empty()) check_writable(p.output, "-o");
  return p;
}

void write_outputs(RunRecord& rec, const OutputPlan& out) {
  const auto analysis = report::analyze(rec);
  std::string failed;
  auto attempt = [&](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      if (failed.empty()) failed = e.what();
    }
  };
  if (!out.json.empty()) {
    std::string text = report::render(rec, analysis, report::Format::json, false);
    attempt([&] { write_document(text, out.json); });
  }
  auto fmt_ = report::parse_format(out.format);
  if (!out.output.empty()) {
    attempt([&] { write_file(out.output, report::render(rec, analysis, fmt_, false)); });
  } else {
    // The report goes to stderr unless a format was asked for explicitly, so that
    // `noisewatch -- ./bench > out.txt` leaves out.txt to the benchmark.
    FILE* dest = out.format_given ? stdout : stderr;
    bool color = use_color(dest);
    std::string text = report::render(rec, analysis, fmt_, color);
    write_document(text, "", dest);
  }
  if (!failed.empty()) throw Error(failed);
}

}  // namespace nw::runner
