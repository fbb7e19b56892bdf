// SPDX-License-Identifier: Apache-2.0
// The /metrics text: escaping, spelling of values, and the whole page against a golden file
// that promtool accepts.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "agent/agent_metrics.h"
#include "common/exposition.h"
#include "support/files.h"

namespace nw::agent {
namespace {

std::string golden_path() { return std::string(NW_SOURCE_DIR) + "/tests/data/agent/metrics.prom"; }

TEST(AgentExposition, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(escape_label_value(R"(a"b\c)"), R"(a\"b\\c)");
  EXPECT_EQ(escape_label_value("two\nlines"), "two\\nlines");
  EXPECT_EQ(escape_help("say \"x\"\\y\nz"), "say \"x\"\\\\y\\nz");
}

TEST(AgentExposition, ReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(valid_utf8("kworker/1:2"), "kworker/1:2");
  EXPECT_EQ(valid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  // A comm cut by the kernel in the middle of a two-byte character.
  EXPECT_EQ(valid_utf8("caf\xC3"), "caf\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("\xFF\xFE"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

TEST(AgentExposition, SpellsValuesAsPrometheusReadsThem) {
  EXPECT_EQ(format_value(0.5), "0.5");
  EXPECT_EQ(format_value(1e-9), "1e-09");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
  EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
  // Large counters keep every digit that a double holds.
  EXPECT_EQ(format_value(123456.789012345), "123456.789012345");
}

TEST(AgentExposition, AFamilyWithoutSamplesWritesNothing) {
  Exposition x;
  x.family("noisewatch_empty", "gauge", "nothing");
  x.family("noisewatch_one", "counter", "one");
  x.sample_int("noisewatch_one", {{"a", "b"}}, 1);
  EXPECT_EQ(x.str(), "# HELP noisewatch_one one\n# TYPE noisewatch_one counter\nnoisewatch_one{a=\"b\"} 1\n");
}

AgentMetrics sample_metrics() {
  AgentMetrics m;
  m.version = "0.1.0";
  m.kernel = "6.18.0";
  m.watched_cpus = {0, 1};
  m.top_n = 2;
  m.noise = {{0, "irq", "local_timer", 2500, 12500000},  {0, "irq", "virtio1-req.0", 10, 40000},
             {0, "preemption", "kworker/0:1", 7, 90000}, {0, "preemption", "a\"b\\c", 1, 1000},
             {0, "preemption", "other", 3, 3000},        {1, "softirq", "TIMER", 800, 2000000}};
  m.folded_sources = {{0, 4}, {1, 0}};
  m.lost_events = 3;
  m.unavailable = {{"frequency", "this kernel has no power:cpu_frequency tracepoint"}};
  m.last_collect_unix = 1796000000.25;
  m.collect_duration_s = 0.0004;
  auto report = std::make_shared<check::CheckReport>();
  report->findings = {{"smt", check::Status::ok, {}, "no SMT", {}, nullptr},
                      {"cpu-isolation", check::Status::warn, {1}, "no isolated CPUs", {}, nullptr},
                      {"cpu-governor", check::Status::unknown, {}, "no cpufreq", {}, nullptr}};
  m.check.report = report;
  m.check.runs = 5;
  m.check.errors = 1;
  m.check.last_success_unix = 1796000000;
  m.check.last_duration_s = 0.08;
  m.self = {0.75, 10485760, 12, 1795990000};
  m.http.responses = {{200, 41}, {404, 2}};
  m.http.connections_open = 1;
  m.http.connections_rejected = 0;
  m.http.connections_timed_out = 1;
  m.http.tls = true;
  m.http.tls_handshake_failures = 3;
  m.web_config = {.configured = true,
                  .last_reload_ok = false,
                  .last_reload_success_unix = 1795990000,
                  .reloads = 2,
                  .reload_failures = 1};
  return m;
}

TEST(AgentExposition, WholePageMatchesTheGoldenFile) {
  std::string text = render_metrics(sample_metrics());
  test::expect_golden(text, golden_path());
}

TEST(AgentExposition, TlsAndWebConfigFamiliesOnlyWhereTheyApply) {
  AgentMetrics m = sample_metrics();
  std::string with = render_metrics(m);
  EXPECT_NE(with.find("noisewatch_agent_tls 1\n"), std::string::npos);
  EXPECT_NE(with.find("noisewatch_agent_tls_handshake_failures_total 3\n"), std::string::npos);
  EXPECT_NE(with.find("noisewatch_agent_web_config_last_reload_successful 0\n"), std::string::npos);
  EXPECT_NE(with.find("noisewatch_agent_web_config_reloads_total{result=\"success\"} 1\n"), std::string::npos);
  EXPECT_NE(with.find("noisewatch_agent_web_config_reloads_total{result=\"failure\"} 1\n"), std::string::npos);
  m.http.tls = false;
  m.web_config = {};
  std::string plain = render_metrics(m);
  EXPECT_NE(plain.find("noisewatch_agent_tls 0\n"), std::string::npos);
  EXPECT_EQ(plain.find("handshake"), std::string::npos);
  EXPECT_EQ(plain.find("web_config"), std::string::npos);
}

TEST(AgentExposition, EverySeriesHasOneHelpAndTypeAndCountersEndInTotal) {
  std::istringstream in(render_metrics(sample_metrics()));
  std::string line;
  std::map<std::string, int> types;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      ++types[name];
      if (type == "counter") {
        EXPECT_TRUE(name.ends_with("_total")) << name;
      }
      EXPECT_TRUE(name.rfind("noisewatch_", 0) == 0) << name;
    }
  }
  for (const auto& [name, n] : types) EXPECT_EQ(n, 1) << name;
}

TEST(AgentExposition, PromtoolAcceptsTheGoldenPage) {
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  std::string cmd = "/usr/bin/promtool check metrics < " + golden_path() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  std::string out;
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = pclose(p);
  EXPECT_EQ(status, 0) << out;
}

}  // namespace
}  // namespace nw::agent
