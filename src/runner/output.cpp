#include "runner/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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
  // A record that cannot be written is lost after every repetition ran: say so before any.
  if (!p.json.empty() && p.json != "-") check_writable(p.json, "--json");
  if (!p.output.empty()) check_writable(p.output, "-o");
  return p;
}

void check_writable(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file(path);
  if (fs::is_directory(file, ec))
    throw Error(fmt::format("{} {}: is a directory; give a file name", option, path));
  fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("{} {}: directory {} does not exist; create it or write elsewhere", option, path,
                            dir.string()));
  const bool exists = fs::exists(file, ec);
  if (access(exists ? file.c_str() : dir.c_str(), W_OK) != 0)
    throw Error(fmt::format("{} {}: cannot write there ({}); choose another path", option, path,
                            std::strerror(errno)));
}

void write_file(const std::string& path, const std::string& text) {
  // Whole or not at all: written next to its place and renamed over it, so a reader (or a full
  // disk) never sees half a report. A special file (/dev/stdout, a FIFO) is written in place.
  std::error_code ec;
  const bool regular = !std::filesystem::exists(path, ec) || std::filesystem::is_regular_file(path, ec);
  const std::string tmp = regular ? path + ".tmp" + std::to_string(getpid()) : path;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    f << text;
    f.close();
    if (!f) {
      int err = errno;
      if (regular) std::remove(tmp.c_str());
      throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
  }
  if (regular && std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
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
