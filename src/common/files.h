// SPDX-License-Identifier: Apache-2.0
// Reading whole files (procfs, sysfs, fixtures, the kernel BTF): the one helper every layer uses.
#pragma once
#include <optional>
#include <string>

namespace nw {

// The whole file as a string, or "" when it cannot be read.
std::string read_file(const std::string& path);

// The same, or nullopt when it cannot be opened, errno saying why: for a file the user named,
// where an empty file and a missing one mean different things.
std::optional<std::string> try_read_file(const std::string& path);

}  // namespace nw
