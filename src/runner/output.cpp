#include "runner/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "cli/errors.h"
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
  return p;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  f << text;
  f.close();
  if (!f) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
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
    attempt([&] {
      if (out.json == "-") std::fwrite(text.data(), 1, text.size(), stdout), std::fflush(stdout);
      else write_file(out.json, text);
    });
  }
  auto fmt_ = report::parse_format(out.format);
  if (!out.output.empty()) {
    attempt([&] { write_file(out.output, report::render(rec, analysis, fmt_, false)); });
  } else {
    // The report goes to stderr unless a format was asked for explicitly, so that
    // `noisewatch -- ./bench > out.txt` leaves out.txt to the benchmark.
    FILE* dest = out.format_given ? stdout : stderr;
    bool color = isatty(fileno(dest)) && !std::getenv("NO_COLOR");
    std::string text = report::render(rec, analysis, fmt_, color);
    std::fwrite(text.data(), 1, text.size(), dest);
    std::fflush(dest);
  }
  if (!failed.empty()) throw Error(failed);
}

}  // namespace nw::runner
