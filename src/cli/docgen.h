// SPDX-License-Identifier: Apache-2.0
// Man pages and shell completions, generated from the same CLI11 definitions as --help
// (cli::make_app), so that none of them can drift from the options noisewatch really takes.
// tools/nw_docgen.cpp writes them at build time; `cmake --install` and the .deb ship them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nw::cli {

// What completion can offer for an option's value, read from its definition: the type name
// ("FILE", "DIR", "KNOBS") or the choices of an IsMember check ("TEXT:{text,json}").
enum class ValueKind { none, free, file, dir, knobs, choices };

struct OptionDoc {
  std::vector<std::string> names;  // "-c", "--cpu"; a positional's name ("RUN.json")
  std::string value;               // the value's name in the synopsis ("FILE", "INT"), "" for a flag
  std::string default_value;
  std::string help;
  ValueKind kind = ValueKind::none;
  std::vector<std::string> choices;  // kind == choices
  bool positional = false;
};

struct CommandDoc {
  std::string path;  // "", "check", "tune apply"
  std::string description, footer;
  std::vector<OptionDoc> options;  // --help first, then as defined
  std::vector<CommandDoc> subcommands;
  bool takes_command = false;  // the benchmark's command follows (`run`, `tune prove`)
};

CommandDoc describe(const CLI::App& app);

// Section 1 pages: "noisewatch.1" and one per subcommand ("noisewatch-check.1"), file name ->
// roff text. `date` goes in the page header (the build's, or SOURCE_DATE_EPOCH's).
std::map<std::string, std::string> man_pages(const CommandDoc& top, const std::string& version,
                                             const std::string& date);

// The knob ids `tune --only/--skip` and `run --tune-only/--tune-skip` take.
std::vector<std::string> knob_ids();

std::string bash_completion(const CommandDoc& top);
std::string zsh_completion(const CommandDoc& top);

}  // namespace nw::cli
