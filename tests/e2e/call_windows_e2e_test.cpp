// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of --windows-at: a C++ harness with no markers (tests/workloads/nw_calls.cpp),
// each call of work::step a window, with a hog continued in its odd calls; a libc function as
// the window; and the errors a name that does not resolve gives.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

constexpr int kCalls = 8, kProcessRuns = 2;

Proc run_at(const std::string& json, int runs, const std::string& spec, const std::vector<std::string>& bench) {
  std::vector<std::string> argv{noisewatch(), "--cpu", "1",      "--runs", std::to_string(runs),
                                "--warmup",   "0",     "--json", json,     "--windows-at",
                                spec,         "--"};
  argv.insert(argv.end(), bench.begin(), bench.end());
  return run(argv);
}

struct CallTruth {
  uint64_t ns = 0, inner_hog_ns = 0, outer_hog_ns = 0;
};

std::vector<CallTruth> read_truth(const std::string& path) {
  std::vector<CallTruth> out;
  std::istringstream in(test::slurp(path));
  int k;
  CallTruth t;
  while (in >> k >> t.ns >> t.inner_hog_ns >> t.outer_hog_ns) out.push_back(t);
  return out;
}

TEST(CallWindowsE2E, EachCallIsAWindowAndTheHogIsChargedToItsCalls) {
  const std::string json = temp_path("calls.json"), truth = temp_path("calls.truth");
  Proc p;
  {
    StoppedHog hog;
    p = run_at(json, kProcessRuns, "step", {bin("nw_calls"), std::to_string(kCalls), "2000", truth});
  }
  ASSERT_EQ(p.status, 0) << p.err;
  // Which function was chosen is said.
  EXPECT_NE(p.err.find("work::step(int, long)"), std::string::npos) << p.err;
  auto rec = load_json(json);
  EXPECT_EQ(rec["windows_at"]["function"], "work::step(int, long)");
  EXPECT_EQ(rec["windows_at"]["symbol"], "_ZN4work4stepEil");
  auto calls = read_truth(truth);
  ASSERT_EQ(calls.size(), size_t(kCalls * kProcessRuns));
  // One window per outermost call: the nested call is inside it, not a window of its own.
  ASSERT_EQ(rec["runs"].size(), size_t(kCalls * kProcessRuns)) << rec["warnings"].dump();
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto& w = rec["runs"][i];
    SCOPED_TRACE(w.dump());
    EXPECT_EQ(w["window"], i % kCalls);
    // The window is the call: inside the benchmark's own clock reads around it, less at most the
    // uprobes' cost (microseconds). A process's first hit of a uprobe also maps its XOL page (the
    // kernel's out-of-line single-step area: an mmap and a fault, 234 us seen on a slow VM),
    // between the workload's clock read and the window's start. In the odd calls the hog, at nice
    // -10, can also take the CPU between those reads and the probes (36 ms seen in one CI run):
    // its run time outside the call is allowed on top.
    const uint64_t wall = w["wall_ns"].get<uint64_t>();
    const uint64_t hog_outside =
        calls[i].outer_hog_ns > calls[i].inner_hog_ns ? calls[i].outer_hog_ns - calls[i].inner_hog_ns : 0;
    EXPECT_LE(wall, calls[i].ns);
    EXPECT_GE(wall + (i % kCalls == 0 ? 1'000'000 : 200'000) + hog_outside, calls[i].ns);
    uint64_t charged = 0;
    for (const auto& n : w["noise"]) charged += n["time_ns"].get<uint64_t>();
    EXPECT_LE(charged, wall);
    // The hog ran in the odd calls only. The truth brackets the charge: its CPU time from just
    // inside the call (the workload's reads) to just outside it (the hog, at nice -10, can take
    // a whole slice between the outer read and the call: outside the window).
    const uint64_t hog_ns = run_source_time(w, "preemption:nw_hog");
    if (i % 2 == 1) {
      EXPECT_GE(double(hog_ns) + 500'000, 0.95 * double(calls[i].inner_hog_ns));
      EXPECT_LE(hog_ns, calls[i].outer_hog_ns + 500'000);
      EXPECT_GT(calls[i].inner_hog_ns, 1'000'000u);
    } else {
      EXPECT_LE(hog_ns, 500'000u);
    }
  }
  std::filesystem::remove(json);
  std::filesystem::remove(truth);
}

TEST(CallWindowsE2E, AFunctionOfALibraryTheBenchmarkNeeds) {
  // clock_gettime in libc: nw_calls calls it twice per call of work::step.
  const std::string json = temp_path("calls-libc.json");
  Proc p = run_at(json, 1, "clock_gettime@libc", {bin("nw_calls"), "5", "100"});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  EXPECT_NE(rec["windows_at"]["binary"].get<std::string>().find("libc.so"), std::string::npos);
  EXPECT_EQ(rec["runs"].size(), 10u) << rec["warnings"].dump();
  std::filesystem::remove(json);
}

TEST(CallWindowsE2E, NamesThatDoNotResolveAreOneLineAndExit125) {
  const std::string json = temp_path("calls-bad.json");
  Proc typo = run_at(json, 1, "stpe", {bin("nw_calls"), "2", "10"});
  EXPECT_EQ(typo.status, 125);
  EXPECT_NE(typo.err.find("work::step"), std::string::npos) << typo.err;  // the nearest
  EXPECT_EQ(std::count(typo.err.begin(), typo.err.end(), '\n'), 1) << typo.err;
  Proc lib = run_at(json, 1, "step@libnosuch", {bin("nw_calls"), "2", "10"});
  EXPECT_EQ(lib.status, 125);
  EXPECT_NE(lib.err.find("libnosuch"), std::string::npos) << lib.err;
  // A function the benchmark never calls: no window, said.
  Proc never = run_at(json, 1, "nanosleep@libc", {bin("nw_calls"), "2", "10"});
  EXPECT_EQ(never.status, 125);
  EXPECT_NE(never.err.find("never called"), std::string::npos) << never.err;
  std::filesystem::remove(json);
}

}  // namespace
}  // namespace nw::e2e
