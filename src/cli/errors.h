// Errors that end noisewatch with exit status 125 and a one-line message saying what to do.
#pragma once
#include <stdexcept>
#include <string>

namespace nw {

inline constexpr int kExitOwnError = 125;

// Bad command line, bad input file, missing privileges, probe failure: noisewatch's own error.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nw
