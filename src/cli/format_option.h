// SPDX-License-Identifier: Apache-2.0
// The --format option, the same for every subcommand: the choices listed in --help, checked by
// CLI11 before anything runs, one error message ("--format: pdf not in {text,json}") and exit 125.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace nw::cli {

inline CLI::Option* add_format_option(CLI::App* sub, std::string& into, const std::vector<std::string>& formats,
                                      const std::string& help) {
  return sub->add_option("--format", into, help)->check(CLI::IsMember(formats));
}

}  // namespace nw::cli
