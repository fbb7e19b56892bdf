// SPDX-License-Identifier: Apache-2.0
#include "runner/hyperfine_command.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::runner {

namespace {

// hyperfine 1.15's options that take values (its --help), and how many.
int values_taken(const std::string& opt) {
  static const char* const one[] = {"-w",
                                    "--warmup",
                                    "-m",
                                    "--min-runs",
                                    "-M",
                                    "--max-runs",
                                    "-r",
                                    "--runs",
                                    "-s",
                                    "--setup",
                                    "-p",
                                    "--prepare",
                                    "-c",
                                    "--cleanup",
                                    "-D",
                                    "--parameter-step-size",
                                    "--style",
                                    "-S",
                                    "--shell",
                                    "--sort",
                                    "-u",
                                    "--time-unit",
                                    "--export-asciidoc",
                                    "--export-csv",
                                    "--export-json",
                                    "--export-markdown",
                                    "--export-orgmode",
                                    "--output",
                                    "--input",
                                    "-n",
                                    "--command-name",
                                    "--reference",
                                    "--min-benchmarking-time"};
  if (opt == "-P" || opt == "--parameter-scan") return 3;
  if (opt == "-L" || opt == "--parameter-list") return 2;
  return std::find(std::begin(one), std::end(one), opt) != std::end(one) ? 1 : 0;
}

std::string first_word(const std::string& cmd) {
  std::istringstream in(cmd);
  std::string w;
  while (in >> w) {
    // FOO=bar ./bench: the assignment is the shell's, the program comes after it.
    if (w.find('=') != std::string::npos && w.find('/') == std::string::npos) continue;
    if (w.size() > 1 && (w.front() == '\'' || w.front() == '"') && w.back() == w.front()) w = w.substr(1, w.size() - 2);
    return w;
  }
  return "";
}

}  // namespace

std::string hyperfine_program(const std::vector<std::string>& command) {
  const std::string name = command.empty() ? "" : command[0].substr(command[0].rfind('/') + 1);
  if (name != "hyperfine")
    throw Error(
        fmt::format("--windows hyperfine: the command is {}, not hyperfine: put hyperfine after -- "
                    "(noisewatch --windows hyperfine -- hyperfine -N --runs 20 ./bench)",
                    command.empty() ? "empty" : command[0]));
  std::vector<std::string> programs;
  bool options = true;
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (options && a == "--") {
      options = false;
      continue;
    }
    if (options && a.size() > 1 && a[0] == '-') {
      if (a.find('=') == std::string::npos) i += size_t(values_taken(a));
      continue;
    }
    std::string p = first_word(a);
    if (!p.empty()) programs.push_back(p);
  }
  if (programs.empty())
    throw Error("--windows hyperfine: hyperfine is given no command to benchmark (hyperfine ./bench)");
  auto base = [](const std::string& p) { return p.substr(p.rfind('/') + 1); };
  for (const auto& p : programs)
    if (base(p) != base(programs[0]))
      throw Error(
          fmt::format("--windows hyperfine: hyperfine benchmarks {} and {}: a window is one program's run; "
                      "choose one with --windows-exec {}",
                      programs[0], p, base(programs[0])));
  return programs[0];
}

}  // namespace nw::runner
