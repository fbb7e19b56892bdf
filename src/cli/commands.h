// SPDX-License-Identifier: Apache-2.0
// Each subcommand registers its own options on the CLI11 app and sets the action to run.
// One function per subcommand, each in its own src/cli/<subcommand>_cli.cpp.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nw::cli {

using Action = std::function<int()>;

// Exit status of noisewatch's own errors (nw::Error, a bad command line): 125, as env(1) and
// timeout(1) use it, next to 126/127 for a benchmark that cannot run (docs/contracts.md).
inline constexpr int kExitOwnError = 125;

void register_run(CLI::App& app, Action& action);
void register_report(CLI::App& app, Action& action);
void register_check(CLI::App& app, Action& action);
void register_snapshot(CLI::App& app, Action& action);
void register_compare(CLI::App& app, Action& action);
void register_bisect(CLI::App& app, Action& action);
void register_events(CLI::App& app, Action& action);
void register_kernel(CLI::App& app, Action& action);
void register_agent(CLI::App& app, Action& action);
void register_tune(CLI::App& app, Action& action);

// The words after the first `--` on the command line (the benchmark and its arguments); they
// are kept away from the option parser so that none of them is taken for noisewatch's.
const std::vector<std::string>& trailing_args();

// The benchmark command of a subcommand parsed with prefix_command(): its remaining words, then
// the trailing arguments. Throws CLI::ExtrasError for an unknown option (a benchmark is never
// named "-x"); `usage` names the subcommand's help ("noisewatch run --help").
std::vector<std::string> benchmark_command(CLI::App* sub, const std::string& usage);

// The whole command line: every subcommand and option, as --help, the man pages and the shell
// completions (cli/docgen.h) all read it. Parsing sets `action` to the chosen subcommand's work.
std::unique_ptr<CLI::App> make_app(Action& action);

// "noisewatch 0.1.0 (commit 1cfa5ec1a2b3)": what --version prints.
std::string version_line();

// Parses argv and runs the chosen subcommand; returns the process exit status.
int main(int argc, char** argv);

}  // namespace nw::cli
