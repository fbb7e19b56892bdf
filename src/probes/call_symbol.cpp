// SPDX-License-Identifier: Apache-2.0
#include "probes/call_symbol.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace nw::probes {

namespace {

// The demangled name without its parameter list ("ns::f(int) const" -> "ns::f").
std::string without_parameters(const std::string& shown) {
  // The parameter list is the last top-level "(...)"; templates may hold parentheses too, so the
  // scan counts angle brackets.
  int angle = 0;
  for (size_t i = 0; i < shown.size(); ++i) {
    if (shown[i] == '<') ++angle;
    if (shown[i] == '>') --angle;
    if (shown[i] == '(' && angle == 0 && i > 0) return shown.substr(0, i);
  }
  return shown;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// LIB as the user wrote it: a path, a file name, or the start of one (libbenchmark). A name that
// ends where the file's name does, or at its '.' or '-', wins over a longer one it only begins:
// libc is libc.so.6, not libcrypto.so.3 (whichever the executable happens to list first).
std::string find_library(const std::string& lib, const std::vector<std::string>& needed,
                         const std::string& executable) {
  if (lib.find('/') != std::string::npos) {
    if (!std::filesystem::exists(lib)) throw Error(fmt::format("--windows-at: no library {}", lib));
    return lib;
  }
  for (bool whole_name : {true, false})
    for (const auto& path : needed) {
      std::string name = std::filesystem::path(path).filename().string();
      if (!name.starts_with(lib)) continue;
      if (!whole_name || name.size() == lib.size() || name[lib.size()] == '.' || name[lib.size()] == '-') return path;
    }
  std::vector<std::string> names;
  for (const auto& path : needed) names.push_back(std::filesystem::path(path).filename().string());
  throw Error(fmt::format("--windows-at: {} needs no library named {} (it needs: {})", executable, lib,
                          names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "))));
}

}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

std::vector<ElfFunction> matching_functions(const std::vector<ElfFunction>& functions, const std::string& wanted) {
  std::vector<ElfFunction> out;
  for (const auto& f : functions)
    if (f.name == wanted) return {f};
  std::set<uint64_t> addresses;
  for (const auto& f : functions) {
    if (!f.name.starts_with("_Z")) continue;  // C names match exactly, above
    const std::string shown = demangle(f.name), bare = without_parameters(shown);
    const bool match = shown == wanted || bare == wanted || bare.ends_with("::" + wanted);
    if (match && addresses.insert(f.address).second) out.push_back(f);
  }
  return out;
}

std::vector<std::string> nearest_functions(const std::vector<ElfFunction>& functions, const std::string& wanted,
                                           size_t n) {
  std::vector<std::pair<size_t, std::string>> scored;
  std::set<std::string> seen;
  for (const auto& f : functions) {
    std::string bare = without_parameters(demangle(f.name));
    if (!seen.insert(bare).second) continue;
    // Against the part of the name as qualified as `wanted`.
    std::string tail = bare;
    if (wanted.find("::") == std::string::npos)
      if (auto at = bare.rfind("::"); at != std::string::npos) tail = bare.substr(at + 2);
    scored.emplace_back(edit_distance(tail, wanted), bare);
  }
  // Ties in the order searched: the executable's own functions before its libraries'.
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(scored[i].second);
  return out;
}

CallSymbol resolve_call_symbol(const std::string& spec, const std::string& executable) {
  std::string wanted = spec, lib;
  if (auto at = spec.rfind('@'); at != std::string::npos && at > 0) {
    wanted = spec.substr(0, at);
    lib = spec.substr(at + 1);
  }
  if (wanted.empty())
    throw Error("--windows-at: give a function name, e.g. --windows-at step or --windows-at step@libfoo");
  const std::vector<std::string> needed = needed_libraries(executable);
  std::vector<std::string> binaries;
  if (!lib.empty()) binaries.push_back(find_library(lib, needed, executable));
  else {
    binaries.push_back(executable);
    binaries.insert(binaries.end(), needed.begin(), needed.end());
  }
  std::vector<ElfFunction> searched;
  for (const auto& binary : binaries) {
    std::vector<ElfFunction> functions = function_symbols(binary);
    std::vector<ElfFunction> found = matching_functions(functions, wanted);
    if (found.size() == 1) return {binary, found[0].name, demangle(found[0].name), found[0].file_offset};
    if (found.size() > 1) {
      std::vector<std::string> shown;
      for (size_t i = 0; i < found.size() && i < 10; ++i)
        shown.push_back(fmt::format("{} ({})", demangle(found[i].name), found[i].name));
      throw Error(
          fmt::format("--windows-at {}: {} functions of {} match: {}{}; give one of them (the mangled name "
                      "in parentheses, or the demangled one with its parameters)",
                      spec, found.size(), binary, fmt::join(shown, ", "), found.size() > 10 ? ", ..." : ""));
    }
    searched.insert(searched.end(), functions.begin(), functions.end());
  }
  std::vector<std::string> near = nearest_functions(searched, wanted, 5);
  throw Error(fmt::format("--windows-at {}: no function of that name in {}{}{}", spec, executable,
                          lib.empty() ? " or the libraries it needs" : " (" + binaries[0] + ")",
                          near.empty() ? "" : fmt::format("; the nearest: {}", fmt::join(near, ", "))));
}

}  // namespace nw::probes
