// SPDX-License-Identifier: Apache-2.0
// --windows-at SYMBOL: which function of the benchmark's executable, or of a library it needs,
// the user means. C++ functions by mangled name or by their demangled name (with or without the
// parameters, qualified as much as needed: `step`, `work::step`, `work::step(int)`).
#pragma once
#include <string>
#include <vector>

#include "probes/elf_symbols.h"

namespace nw::probes {

struct CallSymbol {
  std::string binary;        // the executable or the library that defines it
  std::string name;          // as in its symbol table (what the uprobe is attached to)
  std::string shown;         // demangled
  uint64_t file_offset = 0;  // its code's offset in `binary`
};

// `spec`: SYMBOL, or SYMBOL@LIB (LIB: a library's file name, or its start, as libbenchmark, or a
// path). Searches `executable`, then the libraries it needs, and takes the first that defines a
// match. Throws nw::Error: no match (naming the nearest), or several (listing them).
CallSymbol resolve_call_symbol(const std::string& spec, const std::string& executable);

// The parts, for tests. The demangled name (the name itself when it is not a C++ one).
std::string demangle(const std::string& name);
// The functions that `wanted` names: an exact symbol name if there is one, else every function
// whose demangled name is `wanted`, or is it with parameters, or ends with "::" + `wanted`.
// Aliases (one address under several names) count once.
std::vector<ElfFunction> matching_functions(const std::vector<ElfFunction>& functions, const std::string& wanted);
// Up to `n` demangled names nearest to `wanted` (edit distance on the name without parameters).
std::vector<std::string> nearest_functions(const std::vector<ElfFunction>& functions, const std::string& wanted,
                                           size_t n);

}  // namespace nw::probes
