// SPDX-License-Identifier: Apache-2.0
// docs/contracts.md's "Command line" is written by hand, in fewer words than --help; this test
// holds it to the CLI11 definitions (cli::make_app, which --help, the man pages and the completions
// are generated from): every subcommand has its lines there, every option it takes is named
// there by one of its names (with each value of a fixed set, --format's), and every option named
// there is one it takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "cli/docgen.h"
#include "support/files.h"

namespace nw::cli {
namespace {

std::set<std::string> command_paths(const CommandDoc& c) {
  std::set<std::string> paths{c.path};
  for (const auto& s : c.subcommands) paths.merge(command_paths(s));
  return paths;
}

struct Documented {
  std::set<std::string> options;  // "-c", "--cpu"
  std::set<std::string> words;    // every word of its lines, for the values options take
};

// What each command's lines say, by command path ("" for noisewatch itself, "run", "tune apply").
// A line that starts with `noisewatch` opens a command: the words after it that name subcommands
// (`[run]` is run) are its path; indented lines continue it. Text in backquotes is another
// command's (`setarch -R`, `git worktree add --detach`): its options are not this one's.
std::map<std::string, Documented> documented_commands(const std::string& block, const std::set<std::string>& paths) {
  std::map<std::string, Documented> out;
  static const std::regex word(R"([A-Za-z][\w-]*)");
  static const std::regex option(R"((?:^|[\s\[(/,|])(--?[A-Za-z][A-Za-z0-9-]*))");
  static const std::regex quoted("`[^`]*`");
  std::string current;
  bool open = false;
  std::istringstream lines(block);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("noisewatch ")) {
      std::istringstream words(line.substr(11));
      current.clear();
      for (std::string w; words >> w;) {
        if (w == "[run]") w = "run";
        std::string next = current.empty() ? w : current + " " + w;
        if (!paths.count(next)) break;
        current = next;
      }
      open = true;
      out[current];  // a command with no options is listed all the same
    }
    if (!open) continue;
    std::string text = std::regex_replace(line, quoted, " ");
    for (std::sregex_iterator m(text.begin(), text.end(), option), end; m != end; ++m)
      out[current].options.insert((*m)[1]);
    for (std::sregex_iterator m(line.begin(), line.end(), word), end; m != end; ++m)
      out[current].words.insert(m->str());
  }
  return out;
}

TEST(ContractsCommandLine, NamesEveryOptionOfEveryCommandAndNoOther) {
  Action action;
  auto app = make_app(action);
  CommandDoc top = describe(*app);
  std::set<std::string> paths = command_paths(top);
  std::string block = test::doc_code_block("docs/contracts.md", "## Command line");
  ASSERT_FALSE(block.empty()) << "docs/contracts.md has no \"## Command line\" code block";
  auto documented = documented_commands(block, paths);

  size_t checked = 0;
  std::function<void(const CommandDoc&)> walk = [&](const CommandDoc& c) {
    // A command with subcommands of its own (`tune`) is only their prefix.
    bool leaf = c.subcommands.empty() || c.path.empty();
    auto it = documented.find(c.path);
    if (leaf) EXPECT_TRUE(it != documented.end()) << "`noisewatch " << c.path << "` has no line in docs/contracts.md";
    std::set<std::string> names;
    for (const auto& o : c.options) {
      if (o.positional) continue;
      names.insert(o.names.begin(), o.names.end());
      bool help = std::find(o.names.begin(), o.names.end(), "--help") != o.names.end();
      if (it == documented.end() || (help && !c.path.empty())) continue;  // every subcommand has --help
      bool named = false;
      for (const auto& n : o.names) named = named || it->second.options.count(n);
      EXPECT_TRUE(named) << "`noisewatch " << c.path << "` takes " << o.names.back()
                         << ", which docs/contracts.md (Command line) does not name";
      // A fixed set of values (--format's): each is named, so a new format is documented.
      for (const auto& choice : o.choices)
        EXPECT_TRUE(it->second.words.count(choice))
            << "docs/contracts.md (Command line) does not name " << choice << " among the values of `noisewatch "
            << c.path << " " << o.names.back() << "`";
      ++checked;
    }
    if (it != documented.end())
      for (const auto& n : it->second.options)
        EXPECT_TRUE(names.count(n)) << "docs/contracts.md (Command line) names " << n << " for `noisewatch " << c.path
                                    << "`, which does not take it";
    for (const auto& s : c.subcommands) walk(s);
  };
  walk(top);
  for (const auto& [path, names] : documented)
    EXPECT_TRUE(paths.count(path)) << "docs/contracts.md documents `noisewatch " << path << "`, which does not exist";
  EXPECT_GT(checked, 60u) << "every command's options";
}

}  // namespace
}  // namespace nw::cli
