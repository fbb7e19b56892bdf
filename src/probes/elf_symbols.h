// SPDX-License-Identifier: Apache-2.0
// What an ELF file says about its functions and its libraries (libelf): for --windows-at, which
// attaches a uprobe to a function by name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nw::probes {

struct ElfFunction {
  std::string name;  // as in the symbol table (C++: mangled)
  uint64_t address = 0;
  uint64_t file_offset = 0;  // where its code is in the file (what a uprobe is attached at)
};

// The functions defined in `path` (symtab and dynsym; each name once, file order). Throws
// nw::Error when it cannot be read as ELF.
std::vector<ElfFunction> function_symbols(const std::string& path);

// The shared libraries `path` needs (DT_NEEDED), as paths, found the way the dynamic loader
// looks: its DT_RUNPATH/DT_RPATH ($ORIGIN expanded), LD_LIBRARY_PATH, then the system's library
// directories. A library not found is left out.
std::vector<std::string> needed_libraries(const std::string& path);

}  // namespace nw::probes
