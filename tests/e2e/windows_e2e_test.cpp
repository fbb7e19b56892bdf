// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of --windows and --timeline: a C benchmark marking its windows with the USDT
// markers and a Python one writing to the marker fd, each with a CPU hog continued in its odd
// windows only; the trace file checked against the trace-event format and parsed in Chromium;
// the HTML report's timeline laid out by Chromium.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <map>
#include <regex>

#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

namespace fs = std::filesystem;
using nw::test::slurp;
constexpr int kWindows = 8, kProcessRuns = 2;
constexpr const char* kChromium = "/usr/bin/chromium";

// "k inner_ns outer_ns" lines the benchmark wrote: the hog's CPU time from just inside each
// window's markers and from just outside them, per process run.
struct Truth {
  uint64_t inner = 0, outer = 0;
};
std::vector<std::vector<Truth>> read_truth(const std::string& path) {
  std::vector<std::vector<Truth>> runs;
  std::istringstream in(slurp(path));
  int k;
  Truth t;
  while (in >> k >> t.inner >> t.outer) {
    if (k == 0) runs.emplace_back();
    if (!runs.empty()) runs.back().push_back(t);
  }
  return runs;
}

// `noisewatch run` as run_recorded() does it, with options before the benchmark's command.
Proc run_with(const std::string& json, int runs, const std::vector<std::string>& options,
              const std::vector<std::string>& bench) {
  std::vector<std::string> argv{noisewatch(), "--cpu", "1",  "--runs", std::to_string(runs),
                                "--warmup",   "0",     "-q", "--json", json};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), bench.begin(), bench.end());
  return run(argv);
}

std::string chromium_dom(const fs::path& html, const fs::path& profile) {
  return capture_output(std::string("timeout 120 ") + kChromium +
                        " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
                        " --disable-component-update --disable-sync --user-data-dir=" +
                        profile.string() + " --dump-dom file://" + html.string() + " 2>/dev/null");
}

// The checks both marker styles must pass: one entry per window, the hog charged in the odd
// windows (against the benchmark's own ground truth) and not in the even ones, the hog first.
void check_hog_windows(const nlohmann::json& rec, const std::string& truth_file) {
  ASSERT_EQ(rec["runs"].size(), size_t(kWindows * kProcessRuns)) << rec["warnings"].dump();
  ASSERT_EQ(rec["process_runs"].size(), size_t(kProcessRuns));
  auto truth = read_truth(truth_file);
  ASSERT_EQ(truth.size(), size_t(kProcessRuns));
  for (size_t i = 0; i < rec["runs"].size(); ++i) {
    const auto& w = rec["runs"][i];
    const int k = w["window"].get<int>(), pr = w["process_run"].get<int>();
    EXPECT_EQ(k, int(i) % kWindows);
    EXPECT_EQ(pr, int(i) / kWindows);
    EXPECT_EQ(w["label"], k);
    EXPECT_EQ(w["index"], int(i));
    EXPECT_FALSE(w.contains("user_ns"));  // not per window
    const uint64_t wall = w["wall_ns"].get<uint64_t>(), hog = run_source_time(w, "preemption:nw_hog");
    const Truth want = truth[size_t(pr)][size_t(k)];
    EXPECT_LE(hog, wall) << "window " << i;  // time is conserved
    if (k % 2) {
      // Between the hog's CPU time just inside the markers (less the interrupts that hit it,
      // charged as such) and just outside them.
      EXPECT_GT(want.inner, 1'000'000u) << "window " << i << ": the hog hardly ran";
      EXPECT_GE(double(hog), 0.7 * double(want.inner))
          << "window " << i << ": charged " << hog << ", hog ran " << want.inner << "; " << w["noise"].dump();
      EXPECT_LE(double(hog), 1.1 * double(want.outer) + 2e6)
          << "window " << i << ": charged " << hog << ", hog ran at most " << want.outer;
    } else {
      EXPECT_LT(want.outer, 200'000u) << "window " << i << ": the hog ran in an even window";
      EXPECT_LT(hog, 500'000u) << "window " << i;
    }
  }
  ASSERT_FALSE(rec["attribution"].empty());
  EXPECT_EQ(rec["attribution"][0]["source"], "preemption:nw_hog") << rec["attribution"].dump();
  EXPECT_EQ(rec["lost_events"], 0);  // a lost key is noise charged to nobody
}

TEST(WindowsE2E, CBenchmarkWithUsdtWindows) {
  std::string json = temp_path("usdt.json"), truth = temp_path("truth");
  StoppedHog hog;
  Proc p = run_with(json, kProcessRuns, {"--windows"}, {bin("nw_windows"), std::to_string(kWindows), "3000", truth});
  ASSERT_EQ(p.status, 0) << p.err;
  check_hog_windows(load_json(json), truth);
  unlink(json.c_str());
  unlink(truth.c_str());
}

TEST(WindowsE2E, PythonBenchmarkWithTheMarkerFd) {
  std::string json = temp_path("fd.json"), truth = temp_path("truth");
  StoppedHog hog;
  Proc p = run_with(json, kProcessRuns, {"--windows"},
                    {"/usr/bin/python3", std::string(NW_SOURCE_DIR) + "/tests/workloads/nw_windows.py",
                     std::to_string(kWindows), "300000", truth});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  check_hog_windows(rec, truth);
  for (const auto& w : rec["warnings"]) EXPECT_EQ(w.get<std::string>().find("marker line"), std::string::npos) << w;
  unlink(json.c_str());
  unlink(truth.c_str());
}

TEST(WindowsE2E, WarmupWindowsAreKeptButNotMeasured) {
  std::string json = temp_path("warm.json");
  Proc p = run({noisewatch(), "--cpu", "1", "--runs", "2", "--warmup", "1", "-q", "--json", json, "--windows",
                "--warmup-windows", "2", "--", bin("nw_windows"), "5", "200"});
  ASSERT_EQ(p.status, 0) << p.err;
  auto rec = load_json(json);
  ASSERT_EQ(rec["runs"].size(), 15u);  // 3 process runs (1 warm-up) x 5 windows
  int measured = 0;
  for (const auto& w : rec["runs"]) {
    bool warm = w["process_run"] == 0 || w["window"].get<int>() < 2;
    EXPECT_EQ(w["warmup"], warm) << w.dump();
    measured += !warm;
  }
  EXPECT_EQ(rec["summary"]["runs"], measured);
  EXPECT_EQ(rec["warmup_windows"], 2);
  unlink(json.c_str());
}

TEST(WindowsE2E, NoWindowMarkedSaysHowToMarkOne) {
  setenv("NW_NO_MARKS", "1", 1);
  Proc p =
      run({noisewatch(), "--cpu", "1", "-r", "1", "-w", "0", "-q", "--windows", "--", bin("nw_windows"), "2", "10"});
  unsetenv("NW_NO_MARKS");
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("marked no window"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("NOISEWATCH_WINDOW_BEGIN()"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("$NOISEWATCH_MARKER_FD"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("attached to the benchmark's binary"), std::string::npos) << p.err;
  // A binary without the probes: the message says so.
  p = run({noisewatch(), "--cpu", "1", "-r", "1", "-w", "0", "-q", "--windows", "--", "/bin/true"});
  EXPECT_EQ(p.status, 125);
  EXPECT_NE(p.err.find("/bin/true has no noisewatch:window_begin USDT probe"), std::string::npos) << p.err;
  // And the window programs are gone with noisewatch (the kernel frees them shortly after).
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = loaded_bpf_programs().find("on_marker_write") == std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << loaded_bpf_programs();
}

class TimelineE2E : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("nw_timeline_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir / "profile"); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(TimelineE2E, TraceFileAndHtmlTimeline) {
  const std::string json = (dir / "rec.json").string(), trace = (dir / "trace.json").string();
  const std::string truth = (dir / "truth").string();
  {
    StoppedHog hog;
    Proc p = run_with(json, kProcessRuns, {"--windows", "--timeline", trace, "--timeline-threshold", "20us"},
                      {bin("nw_windows"), std::to_string(kWindows), "3000", truth});
    ASSERT_EQ(p.status, 0) << p.err;
  }
  auto rec = load_json(json);
  auto t = load_json(trace);

  // The trace: the trace-event format's schema (with the python3-jsonschema package).
  const std::string schema = std::string(NW_SOURCE_DIR) + "/tests/data/timeline/trace_event.schema.json";
  Proc check = run({"/usr/bin/python3", "-c",
                    "import json, sys, jsonschema\n"
                    "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n"
                    "print('valid')",
                    schema, trace});
  if (check.err.find("No module named 'jsonschema'") != std::string::npos)
    ADD_FAILURE() << "python3-jsonschema is missing: scripts/install-deps.sh installs it";
  else EXPECT_EQ(check.out, "valid\n") << check.err;

  // Its content: the hog's slices on CPU 1 (named by its comm), every window and process run.
  std::map<std::string, int> slices;
  double hog_us = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["cat"] == "window") slices["window"]++;
    if (e["cat"] == "process_run") slices["process_run"]++;
    if (e["name"] == "nw_hog") {
      EXPECT_EQ(e["tid"], 1);
      // Between windows (continued before the begin marker) it may run too, but never in an even one.
      if (!e["args"].contains("window")) continue;
      EXPECT_EQ(e["args"]["window"].get<int>() % 2, 1) << "the hog struck in an even window: " << e.dump();
      hog_us += e["dur"].get<double>();
    }
  }
  EXPECT_EQ(slices["window"], kWindows * kProcessRuns);
  EXPECT_EQ(slices["process_run"], kProcessRuns);
  EXPECT_GT(hog_us, 1000.0 * kProcessRuns);
  EXPECT_EQ(t["otherData"]["threshold_ns"], 20000);

  // The record's summary: per window, the hog's events in the odd ones.
  ASSERT_TRUE(rec.contains("timeline"));
  const auto& tl = rec["timeline"];
  EXPECT_EQ(tl["file"], trace);
  EXPECT_EQ(tl["events"].get<size_t>() + tl["dropped"].get<size_t>() > 0, true);
  int odd_with_hog = 0;
  for (const auto& s : tl["spans"])
    if (!s["window"].is_null() && s["window"].get<int>() % 2 == 1 && s["events"].contains("preemption:nw_hog"))
      ++odd_with_hog;
  EXPECT_EQ(odd_with_hog, kWindows / 2 * kProcessRuns);

  if (!fs::exists(kChromium)) GTEST_SKIP() << "chromium is not installed: the browser checks are skipped";
  // A small page parses the trace the way a viewer must (every slice well-formed and nested).
  std::string page = slurp(std::string(NW_SOURCE_DIR) + "/tests/data/timeline/trace_check.html");
  std::string body = slurp(trace);
  for (size_t at; (at = body.find("</")) != std::string::npos;) body.replace(at, 2, "<\\/");
  page.replace(page.find("@TRACE@"), 7, body);
  std::ofstream(dir / "check.html") << page;
  std::string dom = chromium_dom(dir / "check.html", dir / "profile");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dom, m, std::regex("data-trace=\"ok slices=(\\d+) tracks=(\\d+) named=(\\d+) overlaps=(\\d+)\"")))
      << dom.substr(0, 400);
  EXPECT_GE(std::stoi(m[1]), kWindows * kProcessRuns + kProcessRuns + 2);
  EXPECT_GE(std::stoi(m[2]), 3);  // CPU 1, process runs, windows
  EXPECT_EQ(m[2], m[3]);          // every track named
  EXPECT_EQ(m[4], "0");

  // The HTML report draws the timeline from the record alone (the trace file removed).
  fs::remove(trace);
  const std::string html = (dir / "report.html").string();
  Proc r = run({noisewatch(), "report", json, "--format", "html", "-o", html});
  ASSERT_EQ(r.status, 0) << r.err;
  dom = chromium_dom(html, dir / "profile");
  ASSERT_NE(dom.find("<svg id=\"chart-timeline\""), std::string::npos);
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("chart-timeline:(\\d+)x(\\d+):(\\d+)"))) << "not laid out";
  EXPECT_GT(std::stoi(m[1]), 300);
  EXPECT_GT(std::stoi(m[2]), 40);
  // A band per process run and window, and the hog's events on top.
  EXPECT_GE(std::stoi(m[3]), kProcessRuns + kWindows * kProcessRuns + kWindows / 2 * kProcessRuns);
}

}  // namespace
}  // namespace nw::e2e
