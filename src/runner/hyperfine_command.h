// SPDX-License-Identifier: Apache-2.0
// --windows hyperfine: which program hyperfine's runs start, read from its command line, so each
// run is a --windows-exec window with no name to give.
#pragma once
#include <string>
#include <vector>

namespace nw::runner {

// The program of the command hyperfine benchmarks (`hyperfine -N --runs 20 './bench -n 5'` ->
// "./bench"): its first positional argument's first word, environment assignments skipped.
// Throws nw::Error when `command` is not hyperfine, names no command, or several that run
// different programs (a window is one program's run: --windows-exec COMM picks one).
std::string hyperfine_program(const std::vector<std::string>& command);

}  // namespace nw::runner
