// Reading whole files (procfs, sysfs, fixtures, the kernel BTF): the one helper every layer uses.
#pragma once
#include <string>

namespace nw {

// The whole file as a string, or "" when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace nw
