// SPDX-License-Identifier: Apache-2.0
// Which CPUs run, check and agent use: the CPUs this process may use (affinity among the online
// CPUs) and an explicit --cpu checked against them. Pure functions: no cpuset needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/errors.h"
#include "system/allowed_cpus.h"
#include "system/cpu_selection.h"

namespace nw::sys {
namespace {

using Cpus = std::vector<int>;

// The message of the nw::Error that `f` throws; "" (and a test failure) when it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const nw::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no nw::Error";
  return "";
}

TEST(CpuAvailability, AffinityAmongOnlineCpus) {
  auto a = cpu_availability({0, 1, 2, 3}, Cpus{1, 3, 5});  // 5: in the mask, not online
  EXPECT_EQ(a.online, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(a.allowed, (Cpus{1, 3}));
  EXPECT_EQ(a.unavailable(), (Cpus{0, 2}));
}

TEST(CpuAvailability, NoKnownAffinityAllowsEveryOnlineCpu) {
  auto a = cpu_availability({3, 0, 1}, std::nullopt);  // a sysroot: another machine's files
  EXPECT_EQ(a.allowed, (Cpus{0, 1, 3}));
  EXPECT_TRUE(a.unavailable().empty());
}

TEST(CpuAvailability, UnknownOnlineIsTheAffinity) {
  auto a = cpu_availability({}, Cpus{2, 0});
  EXPECT_EQ(a.online, (Cpus{0, 2}));
  EXPECT_EQ(a.allowed, (Cpus{0, 2}));
}

// isolcpus=3: every process inherits the affinity 0-2, its cpuset still holds 0-3.
TEST(CpuAvailability, TheCpusetNotTheInheritedAffinityIsTheLimit) {
  EXPECT_EQ(may_take(Cpus{0, 1, 2, 3}, Cpus{0, 1, 2}), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(may_take(std::nullopt, Cpus{0, 1, 2}), (Cpus{0, 1, 2}));  // no cpuset controller readable
  EXPECT_EQ(may_take(Cpus{}, Cpus{0, 1}), (Cpus{0, 1}));
  EXPECT_FALSE(may_take(std::nullopt, std::nullopt));
}

TEST(CpuAvailability, ThisProcessMayUseSomeOnlineCpu) {
  auto a = read_cpu_availability();
  ASSERT_FALSE(a.allowed.empty());
  for (int c : a.allowed) EXPECT_TRUE(std::binary_search(a.online.begin(), a.online.end(), c)) << c;
}

// `docker run --cpuset-cpus 0` on a 2-CPU machine: what the bug report's container sees.
TEST(CpuSelection, DefaultIsTheCpusetsCpusAndNamesTheOthers) {
  auto a = cpu_availability({0, 1}, Cpus{0});
  auto s = select_cpus(a, std::nullopt);
  EXPECT_EQ(s.cpus, (Cpus{0}));
  EXPECT_EQ(s.unavailable, (Cpus{1}));
  EXPECT_EQ(unavailable_note(s.unavailable), "CPU 1 not available to this process (cpuset/affinity)");
}

TEST(CpuSelection, DefaultWithoutRestrictionIsEveryOnlineCpu) {
  auto s = select_cpus(cpu_availability({0, 1, 2, 3}, Cpus{0, 1, 2, 3}), std::nullopt);
  EXPECT_EQ(s.cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_TRUE(s.unavailable.empty());
  EXPECT_EQ(unavailable_note(s.unavailable), "");
}

TEST(CpuSelection, PreferredCpusCountOnlyWhereAllowed) {
  auto a = cpu_availability({0, 1, 2, 3, 4, 5}, Cpus{0, 1, 2, 3});
  // check prefers the isolated CPUs: those among the allowed ones ...
  EXPECT_EQ(select_cpus(a, std::nullopt, {2, 3, 4, 5}).cpus, (Cpus{2, 3}));
  // ... and every allowed CPU when the container holds none of them.
  EXPECT_EQ(select_cpus(a, std::nullopt, {4, 5}).cpus, (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(unavailable_note(select_cpus(a, std::nullopt).unavailable),
            "CPUs 4-5 not available to this process (cpuset/affinity)");
}

TEST(CpuSelection, RequestedAllowedCpusAreTaken) {
  auto a = cpu_availability({0, 1, 2, 3}, Cpus{1, 2, 3});
  auto s = select_cpus(a, Cpus{3, 1, 3});
  EXPECT_EQ(s.cpus, (Cpus{1, 3}));
  EXPECT_EQ(s.unavailable, (Cpus{0}));
}

TEST(CpuSelection, RequestedCpuOutsideTheCpusetIsAnErrorNamingTheAllowedOnes) {
  auto a = cpu_availability({0, 1}, Cpus{0});
  std::string msg = error_of([&] { select_cpus(a, Cpus{1}); });
  EXPECT_NE(msg.find("CPU 1 is not available to this process (cpuset/affinity allows CPU 0)"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("pick --cpu from those"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  msg = error_of([&] { select_cpus(cpu_availability({0, 1, 2, 3}, Cpus{0, 1}), Cpus{1, 2, 3}); });
  EXPECT_NE(msg.find("CPUs 2-3 are not available to this process (cpuset/affinity allows CPUs 0-1)"), std::string::npos)
      << msg;
}

TEST(CpuSelection, RequestedOfflineCpuIsAnErrorNamingTheOnlineOnes) {
  auto a = cpu_availability({0, 1}, Cpus{0});
  std::string msg = error_of([&] { select_cpus(a, Cpus{0, 99}); });
  EXPECT_NE(msg.find("CPU 99 is not online (online CPUs: 0-1)"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { select_cpus(a, Cpus{}); }).find("--cpu names no CPU"), std::string::npos);
}

TEST(CpuSelection, NothingKnownAcceptsTheRequestAndChoosesNothingByDefault) {
  // A sysroot without sys/devices/system/cpu/online: its caller says what is missing.
  auto a = cpu_availability({}, std::nullopt);
  EXPECT_EQ(select_cpus(a, Cpus{2}).cpus, (Cpus{2}));
  EXPECT_TRUE(select_cpus(a, std::nullopt).cpus.empty());
}

}  // namespace
}  // namespace nw::sys
