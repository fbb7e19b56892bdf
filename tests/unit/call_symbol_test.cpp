// SPDX-License-Identifier: Apache-2.0
// --windows-at: which function a name means (probes/call_symbol.h), on made-up symbol tables and
// on this test binary's own ELF file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>

#include "common/errors.h"
#include "probes/call_symbol.h"

namespace nw::probes {
namespace {

const std::vector<ElfFunction> kTable = {
    {"main", 0x1000},
    {"_ZN4work4stepEil", 0x2000},    // work::step(int, long)
    {"_ZN4work4stepEd", 0x3000},     // work::step(double)
    {"_ZN5other4stepEv", 0x4000},    // other::step()
    {"_ZN4work3jobC1Ev", 0x5000},    // work::job::job(): complete and base constructors,
    {"_ZN4work3jobC2Ev", 0x5000},    // one address
    {"_ZNK4work3job3runEv", 0x6000}  // work::job::run() const
};

std::vector<std::string> names(const std::vector<ElfFunction>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.name);
  return out;
}

TEST(CallSymbol, Demangles) {
  EXPECT_EQ(demangle("_ZN4work4stepEil"), "work::step(int, long)");
  EXPECT_EQ(demangle("main"), "main");
}

TEST(CallSymbol, MatchesByMangledOrDemangledName) {
  EXPECT_EQ(names(matching_functions(kTable, "main")), std::vector<std::string>{"main"});
  EXPECT_EQ(names(matching_functions(kTable, "_ZN4work4stepEd")), std::vector<std::string>{"_ZN4work4stepEd"});
  EXPECT_EQ(names(matching_functions(kTable, "work::step(int, long)")), std::vector<std::string>{"_ZN4work4stepEil"});
  EXPECT_EQ(names(matching_functions(kTable, "other::step")), std::vector<std::string>{"_ZN5other4stepEv"});
  EXPECT_EQ(names(matching_functions(kTable, "job::run")), std::vector<std::string>{"_ZNK4work3job3runEv"});
  EXPECT_EQ(names(matching_functions(kTable, "work::job::run() const")),
            std::vector<std::string>{"_ZNK4work3job3runEv"});
  // Overloads and namespaces: every candidate, for the user to choose from.
  EXPECT_EQ(matching_functions(kTable, "step").size(), 3u);
  EXPECT_EQ(matching_functions(kTable, "work::step").size(), 2u);
  // Aliases of one address are one function.
  EXPECT_EQ(matching_functions(kTable, "work::job::job").size(), 1u);
  // A part of a name is not a match.
  EXPECT_TRUE(matching_functions(kTable, "ste").empty());
  EXPECT_TRUE(matching_functions(kTable, "rk::step").empty());
}

TEST(CallSymbol, NearestNamesForATypo) {
  auto near = nearest_functions(kTable, "stpe", 2);
  ASSERT_EQ(near.size(), 2u);
  EXPECT_TRUE(near[0] == "work::step" || near[0] == "other::step") << near[0];
}

std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return std::string(buf, n > 0 ? size_t(n) : 0);
}

TEST(CallSymbol, ResolvesInTheExecutableAndInItsLibraries) {
  const std::string exe = self_path();
  CallSymbol m = resolve_call_symbol("main", exe);
  EXPECT_EQ(m.binary, exe);
  EXPECT_EQ(m.name, "main");
  // Not in the executable: the libraries it needs (libc), or the one named.
  CallSymbol n = resolve_call_symbol("nanosleep", exe);
  EXPECT_NE(n.binary.find("libc.so"), std::string::npos) << n.binary;
  EXPECT_EQ(resolve_call_symbol("nanosleep@libc", exe).binary, n.binary);
  EXPECT_THROW(resolve_call_symbol("nanosleep@libnosuch", exe), Error);
  try {
    resolve_call_symbol("nanoslep", exe);
    FAIL() << "a typo resolved";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nanosleep"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_call_symbol("main", "/etc/passwd"), Error);  // not ELF
}

}  // namespace
}  // namespace nw::probes
