// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/window_options.h"
#include "common/build_info.h"
#include "common/errors.h"
#include "common/phase_timing.h"

namespace nw::cli {

namespace {

bool is_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == word) return true;
  return false;
}

// `noisewatch -- ./bench` and `noisewatch -r 5 -- ./bench` mean `noisewatch run ...`.
std::vector<std::string> with_default_subcommand(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (argc < 2) return args;
  std::string first = args[1];
  bool top_level_flag = first == "--help" || first == "-h" || first == "--version" || first == "-V";
  if (!is_subcommand(app, first) && !top_level_flag) args.insert(args.begin() + 1, "run");
  return args;
}

std::vector<std::string>& trailing_storage() {
  static std::vector<std::string> t;
  return t;
}

}  // namespace

const std::vector<std::string>& trailing_args() { return trailing_storage(); }

std::vector<std::string> benchmark_command(CLI::App* sub, const std::string& usage) {
  auto command = sub->remaining();
  // prefix_command() hands over unknown options too.
  if (!command.empty() && command.front().size() > 1 && command.front()[0] == '-')
    throw CLI::ExtrasError(fmt::format("unknown option {} (see `{}`)", command.front(), usage),
                           CLI::ExitCodes::ExtrasError);
  const auto& tail = trailing_args();
  command.insert(command.end(), tail.begin(), tail.end());
  return command;
}

std::string version_line() { return fmt::format("noisewatch {} (commit {})", NOISEWATCH_VERSION, build_commit()); }

std::unique_ptr<CLI::App> make_app(Action& action) {
  auto app = std::make_unique<CLI::App>(
      "noisewatch: explains why a benchmark's timings vary. It runs the benchmark on a pinned\n"
      "CPU while eBPF probes record everything that took time from it (preemption, IRQs,\n"
      "softirqs, timer ticks, NMIs, migrations, steal, ...) and attributes the run-to-run\n"
      "variance to those sources, with the knobs that remove them.\n\n"
      "  noisewatch -- ./bench              explain a benchmark's variance (same as `run`)\n"
      "  noisewatch check                   is this machine fit to benchmark on?\n"
      "  noisewatch compare A.json B.json   a regression: code, or noise?\n"
      "  noisewatch compare -- ./a ::: ./b  the same, measured live until decided\n"
      "  noisewatch bisect --good v1 --bad HEAD --build make -- ./bench   which commit?\n"
      "  noisewatch tune prove -- ./bench   tune the machine, prove the gain, restore it exactly\n",
      "noisewatch");
  app->set_version_flag("-V,--version", version_line(), "print the version and the commit it was built from");
  app->require_subcommand(0, 1);
  app->fallthrough(false);
  register_run(*app, action);
  register_report(*app, action);
  register_check(*app, action);
  register_snapshot(*app, action);
  register_compare(*app, action);
  register_bisect(*app, action);
  register_events(*app, action);
  register_kernel(*app, action);
  register_agent(*app, action);
  register_tune(*app, action);
  return app;
}

int main(int argc, char** argv) {
  timing::begin();
  Action action;
  auto app_ptr = make_app(action);
  CLI::App& app = *app_ptr;

  auto args = with_default_subcommand(app, argc, argv);
  if (auto dd = std::find(args.begin(), args.end(), "--"); dd != args.end()) {
    trailing_storage().assign(dd + 1, args.end());
    args.erase(dd, args.end());
  }
  // `--windows gbench` as `--windows=gbench`: --windows alone stays a flag, so the word after it
  // is the benchmark's command unless it names a harness.
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--windows" && std::find(std::begin(kWindowHarnesses), std::end(kWindowHarnesses), args[i + 1]) !=
                                      std::end(kWindowHarnesses)) {
      args[i] += "=" + args[i + 1];
      args.erase(args.begin() + long(i) + 1);
    }
  if (args.size() < 2) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  std::vector<const char*> cargs;
  for (const auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(int(cargs.size()), cargs.data());
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::printf("%s\n", version_line().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    // A subcommand's --help is reported as CallForHelp by the subcommand itself.
    if (e.get_exit_code() == 0) {
      for (auto* sub : app.get_subcommands()) {
        std::fputs(sub->help().c_str(), stdout);
        return 0;
      }
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    std::string what = e.what();
    if (!what.empty() && what.back() == '\n') what.pop_back();
    // One hint, to the help of the subcommand being parsed (a subcommand's own error names it).
    std::string help = "noisewatch";
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      help += " " + sub->get_name();
    }
    fmt::print(stderr, "noisewatch: {}{}\n", what,
               what.find("(see `") == std::string::npos ? fmt::format(" (see `{} --help`)", help) : "");
    return kExitOwnError;
  }
  if (!action) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  timing::mark("options");
  try {
    int status = action();
    timing::print();
    return status;
  } catch (const Error& e) {
    fmt::print(stderr, "noisewatch: {}\n", e.what());
    return kExitOwnError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "noisewatch: internal error: {}\n", e.what());
    return kExitOwnError;
  }
}

}  // namespace nw::cli
