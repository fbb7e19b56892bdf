// SPDX-License-Identifier: Apache-2.0
// Man pages and completions come from the same definitions as --help: every option --help lists
// is on its command's man page with its text, and the completions offer what the options take.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "cli/commands.h"
#include "cli/docgen.h"
#include "knobs/catalogue.h"

namespace nw::cli {
namespace {

struct Fixture {
  Action action;
  std::unique_ptr<CLI::App> app = make_app(action);
  CommandDoc top = describe(*app);
};

// The option names CLI11's own --help lists for a command.
std::set<std::string> help_option_names(const CLI::App& app) {
  std::set<std::string> names;
  std::istringstream in(app.help());
  std::regex opt(R"(^\s+((?:-{1,2}[A-Za-z][\w-]*)(?:,(?:-{1,2}[A-Za-z][\w-]*))*))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, opt)) continue;
    std::stringstream parts(m[1].str());
    for (std::string n; std::getline(parts, n, ',');) names.insert(n);
  }
  return names;
}

// The roff escaping the generator uses, for searching its output.
std::string roff_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : c == '\\' ? std::string("\\e") : std::string(1, c);
  return out;
}

const CommandDoc* find(const CommandDoc& c, const std::string& path) {
  if (c.path == path) return &c;
  for (const auto& s : c.subcommands)
    if (auto* f = find(s, path)) return f;
  return nullptr;
}

void each_command(const CLI::App* app, const std::string& path,
                  const std::function<void(const CLI::App*, const std::string&)>& f) {
  f(app, path);
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; }))
    each_command(s, path.empty() ? s->get_name() : path + " " + s->get_name(), f);
}

TEST(Docgen, EveryOptionOfHelpIsOnItsManPageWithItsText) {
  Fixture fx;
  auto pages = man_pages(fx.top, "0.1.0", "2026-12-03");
  ASSERT_TRUE(pages.count("noisewatch.1"));
  size_t checked = 0;
  each_command(fx.app.get(), "", [&](const CLI::App* app, const std::string& path) {
    const CommandDoc* doc = find(fx.top, path);
    ASSERT_TRUE(doc) << path;
    std::string page_name = path.empty() ? "noisewatch.1" : "noisewatch-" + path.substr(0, path.find(' ')) + ".1";
    ASSERT_TRUE(pages.count(page_name)) << page_name;
    const std::string& page = pages[page_name];
    std::set<std::string> documented;
    for (const auto& o : doc->options)
      if (!o.positional) documented.insert(o.names.begin(), o.names.end());
    EXPECT_EQ(documented, help_option_names(*app)) << "--help and the man page's options differ for `" << path << "`";
    for (const auto& o : doc->options) {
      for (const auto& n : o.names) EXPECT_NE(page.find(roff_text(n)), std::string::npos) << page_name << ": " << n;
      // The help text, as --help shows it (its first 60 characters, past any line break).
      std::string head = roff_text(o.help.substr(0, std::min<size_t>(60, o.help.find('\n'))));
      EXPECT_NE(page.find(head), std::string::npos)
          << page_name << " lacks the text of " << o.names.front() << ": " << head;
      ++checked;
    }
  });
  EXPECT_GT(checked, 60u) << "every command's options";
}

TEST(Docgen, PagesAreWellFormedRoff) {
  Fixture fx;
  for (const auto& [name, page] : man_pages(fx.top, "0.1.0", "2026-12-03")) {
    EXPECT_EQ(page.rfind(".TH ", 0), 0u) << name;
    for (const char* section :
         {"\n.SH NAME\n", "\n.SH SYNOPSIS\n", "\n.SH DESCRIPTION\n", "\n.SH OPTIONS\n", "\n.SH SEE ALSO\n"})
      EXPECT_NE(page.find(section), std::string::npos) << name << " lacks " << section;
    std::istringstream in(page);
    for (std::string line; std::getline(in, line);) {
      // A line of text must not start with a control character unless it is a request.
      if (!line.empty() && line[0] == '\'') ADD_FAILURE() << name << ": " << line;
      if (line.rfind(".", 0) == 0) {
        static const std::regex request(R"(^\.(TH|SH|PP|TP|B|BR|br|RS|RE|nf|fi|nh|ad)( |$))");
        EXPECT_TRUE(std::regex_search(line, request)) << name << ": unexpected request: " << line;
      }
    }
  }
}

TEST(Docgen, ValuesAreReadFromTheDefinitions) {
  Fixture fx;
  auto option = [&](const std::string& path, const std::string& name) -> const OptionDoc* {
    const CommandDoc* c = find(fx.top, path);
    if (!c) return nullptr;
    for (const auto& o : c->options)
      if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
    return nullptr;
  };
  struct Case {
    std::string path, name;
    ValueKind kind;
  } cases[] = {{"run", "--json", ValueKind::file},
               {"run", "-o", ValueKind::file},
               {"run", "--timeline", ValueKind::file},
               {"run", "--tune-only", ValueKind::knobs},
               {"check", "--sysroot", ValueKind::dir},
               {"check", "--format", ValueKind::choices},
               {"agent", "--web-config", ValueKind::file},
               {"tune apply", "--only", ValueKind::knobs},
               {"tune restore", "--journal", ValueKind::file},
               {"run", "--runs", ValueKind::free},
               {"run", "--quiet", ValueKind::none},
               {"report", "RUN.json", ValueKind::file}};
  for (const auto& c : cases) {
    const OptionDoc* o = option(c.path, c.name);
    ASSERT_TRUE(o) << c.path << " " << c.name;
    if (o->positional) EXPECT_TRUE(o->positional);
    else EXPECT_EQ(int(o->kind), int(c.kind)) << c.path << " " << c.name;
  }
  EXPECT_EQ(option("check", "--format")->choices, (std::vector<std::string>{"text", "json", "prometheus"}));
  EXPECT_TRUE(find(fx.top, "run")->takes_command);
  EXPECT_FALSE(find(fx.top, "check")->takes_command);
  std::vector<std::string> ids = knob_ids();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "smt-off"), ids.end());
  EXPECT_EQ(ids.size(), knobs::runtime_knobs().size());
}

// Runs the generated bash completion for a command line; the last word is the one completed.
std::vector<std::string> bash_complete(const std::string& script, const std::vector<std::string>& words) {
  std::string dir = testing::TempDir(), file = dir + "/nw_completion.bash", out = dir + "/nw_completion.out";
  std::ofstream(file) << script;
  std::string cmd =
      "bash -c 'source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _noisewatch; "
      "printf \"%s\\n\" \"${COMPREPLY[@]}\"' _ " +
      file;
  for (const auto& w : words) cmd += " '" + w + "'";
  cmd += " > " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<std::string> got;
  std::ifstream in(out);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) got.push_back(l);
  std::sort(got.begin(), got.end());
  return got;
}

TEST(Docgen, BashCompletionOffersWhatTheDefinitionsSay) {
  if (std::system("command -v bash > /dev/null") != 0) GTEST_SKIP() << "no bash";
  Fixture fx;
  std::string script = bash_completion(fx.top);
  std::string file = testing::TempDir() + "/nw_syntax.bash";
  std::ofstream(file) << script;
  ASSERT_EQ(std::system(("bash -n " + file).c_str()), 0) << "the script does not parse";
  auto subs = bash_complete(script, {"noisewatch", ""});
  for (const char* s : {"run", "report", "check", "snapshot", "compare", "events", "agent", "tune"})
    EXPECT_NE(std::find(subs.begin(), subs.end(), s), subs.end()) << s;
  EXPECT_EQ(bash_complete(script, {"noisewatch", "check", "--format", ""}),
            (std::vector<std::string>{"json", "prometheus", "text"}));
  EXPECT_EQ(bash_complete(script, {"noisewatch", "compare", "--format", "m"}), (std::vector<std::string>{"markdown"}));
  EXPECT_EQ(bash_complete(script, {"noisewatch", "tune", "re"}), (std::vector<std::string>{"restore"}));
  auto knob = bash_complete(script, {"noisewatch", "tune", "apply", "--only", "aslr-off,smt"});
  EXPECT_EQ(knob, (std::vector<std::string>{"aslr-off,smt-off"})) << "the ids after the last comma";
  auto opts = bash_complete(script, {"noisewatch", "agent", "--web"});
  EXPECT_EQ(opts, (std::vector<std::string>{"--web-config"}));
  auto run_opts = bash_complete(script, {"noisewatch", "run", "--no-"});
  EXPECT_NE(std::find(run_opts.begin(), run_opts.end(), "--no-aslr"), run_opts.end());
  EXPECT_TRUE(bash_complete(script, {"noisewatch", "run", "--runs", ""}).empty()) << "a number: nothing to offer";
}

TEST(Docgen, ZshCompletionParses) {
  Fixture fx;
  std::string script = zsh_completion(fx.top);
  EXPECT_EQ(script.rfind("#compdef noisewatch\n", 0), 0u);
  EXPECT_NE(script.find("_noisewatch_tune_apply()"), std::string::npos);
  EXPECT_NE(script.find("--web-config[TLS and basic auth from an exporter-toolkit web config file]:file:_files"),
            std::string::npos)
      << "the file action and a help text without zsh's special characters";
  if (std::system("command -v zsh > /dev/null 2>&1") != 0) GTEST_SKIP() << "zsh is not installed: syntax not checked";
  std::string file = testing::TempDir() + "/_noisewatch";
  std::ofstream(file) << script;
  EXPECT_EQ(std::system(("zsh -n " + file).c_str()), 0);
}

}  // namespace
}  // namespace nw::cli
