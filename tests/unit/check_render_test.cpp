// SPDX-License-Identifier: Apache-2.0
// The three output formats of `check`: JSON contract fields, Prometheus (checked by promtool),
// and the text table's colours.
#include <cstdio>
#include <fstream>

#include "check/check_render.h"
#include "support/check_test_util.h"

namespace nw::check::testing {
namespace {

CheckReport laptop_with_measurement() {
  auto r = check_sysroot(fixture_sysroot("laptop-hybrid-untuned"), std::vector<int>{2, 3});
  CpuNoise a;
  a.cpu = 2;
  a.noise_ppm = 1234.5;
  a.max_gap_ns = 45'000;
  a.gaps = 17;
  a.measured_ns = 5'000'000'000;
  a.gap_ns = 6'172'500;
  a.top_sources = {{"irq:local_timer", 1250, 4'000'000, 9'000}, {"hardware/hypervisor", 0, 2'172'500, 0}};
  a.attributed_ns = 4'000'000;
  CpuNoise b = a;
  b.cpu = 3;
  b.noise_ppm = 99;
  b.gap_ns = 495'000;
  b.top_sources.clear();
  b.attributed_ns.reset();
  r.cpus = {a, b};
  r.recommended_cpu = 3;
  r.recommendation_reason = "CPU 3: quietest";
  return r;
}

TEST(CheckRender, JsonHasTheContractFields) {
  auto j = render_json(laptop_with_measurement());
  EXPECT_EQ(j["schema"], "noisewatch.check/1");
  ASSERT_EQ(j["findings"].size(), 24u);
  for (const auto& f : j["findings"]) {
    for (const char* k : {"id", "status", "cpus", "summary", "fix"}) EXPECT_TRUE(f.contains(k)) << k;
    EXPECT_TRUE(f["cpus"].is_array());
    EXPECT_TRUE(f["fix"].is_array());
  }
  EXPECT_EQ(j["findings"][0]["id"], "cpu-governor");
  EXPECT_EQ(j["findings"][0]["status"], "warn");
  ASSERT_EQ(j["cpus"].size(), 2u);
  EXPECT_EQ(j["cpus"][0]["cpu"], 2);
  EXPECT_DOUBLE_EQ(j["cpus"][0]["noise_ppm"].get<double>(), 1234.5);
  EXPECT_EQ(j["cpus"][0]["max_gap_ns"], 45000);
  EXPECT_EQ(j["cpus"][0]["top_sources"][0]["source"], "irq:local_timer");
  EXPECT_FALSE(j["cpus"][1].contains("top_sources"));
  EXPECT_EQ(j["cpus"][0]["gap_ns"], 6'172'500);
  EXPECT_EQ(j["cpus"][0]["attributed_ns"], 4'000'000);
  EXPECT_FALSE(j["cpus"][1].contains("attributed_ns")) << "not attributed: no total to show";
  EXPECT_EQ(j["recommended_cpu"], 3);
  EXPECT_EQ(j["exit_status"], 2) << "the laptop is on battery";
}

TEST(CheckRender, JsonRecommendedCpuIsNullWithoutMeasurement) {
  auto j = render_json(check_sysroot(fixture_sysroot("server-tuned")));
  EXPECT_TRUE(j["recommended_cpu"].is_null());
  EXPECT_TRUE(j["cpus"].empty());
}

TEST(CheckRender, PrometheusStatusValues) {
  auto text = render_prometheus(laptop_with_measurement());
  EXPECT_NE(text.find("noisewatch_check_status{check=\"smt\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("noisewatch_check_status{check=\"load\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("noisewatch_check_state{check=\"smt\",state=\"warn\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("noisewatch_check_state{check=\"smt\",state=\"ok\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("noisewatch_cpu_noise_ratio{cpu=\"2\"} 0.0012345\n"), std::string::npos) << text;
  EXPECT_NE(text.find("noisewatch_cpu_max_gap_seconds{cpu=\"2\"} 4.5e-05\n"), std::string::npos) << text;
  EXPECT_NE(text.find("noisewatch_recommended_cpu 3\n"), std::string::npos);
  auto minimal = render_prometheus(check_sysroot(fixture_sysroot("minimal-online-only")));
  EXPECT_NE(minimal.find("noisewatch_check_status{check=\"smt\"} -1\n"), std::string::npos) << "unknown is -1";
  EXPECT_EQ(minimal.find("noisewatch_cpu_noise_ratio"), std::string::npos);
}

// promtool (Debian package prometheus) is the reference validator of the exposition format.
TEST(CheckRender, PrometheusPassesPromtool) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0)
    GTEST_FAIL() << "promtool not installed (apt-get install prometheus)";
  for (const auto& report : {laptop_with_measurement(), check_sysroot(fixture_sysroot("minimal-online-only"))}) {
    ScratchRoot tmp;
    std::string file = tmp.dir() + "/check.prom";
    std::ofstream(file) << render_prometheus(report);
    std::string cmd = "promtool check metrics < " + file + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    int rc = pclose(p);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(out, "") << "promtool lint findings";
  }
}

TEST(CheckRender, TextColoursOnlyWhenAsked) {
  auto r = laptop_with_measurement();
  auto plain = render_text(r, false);
  auto colour = render_text(r, true);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(colour.find("\x1b["), std::string::npos);
  EXPECT_NE(plain.find("warn     cpu-governor"), std::string::npos) << plain;
  EXPECT_NE(plain.find("Recommended CPU: 3"), std::string::npos);
  EXPECT_NE(plain.find("irq:local_timer 4.00 ms"), std::string::npos) << plain;
  EXPECT_NE(plain.find("45.0 µs"), std::string::npos) << "max gap";
  EXPECT_NE(plain.find("sudo systemctl stop irqbalance"), std::string::npos) << "fixes listed";
  EXPECT_NE(plain.find("fail     power-supply"), std::string::npos) << plain;
  EXPECT_NE(plain.find("exit 2"), std::string::npos);
  // The quieter CPU 3 is listed first.
  EXPECT_LT(plain.find("\n     3 "), plain.find("\n     2 "));
}

}  // namespace
}  // namespace nw::check::testing
