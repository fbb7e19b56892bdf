// SPDX-License-Identifier: Apache-2.0
// The example alerting rules shipped in docs/agent.md: valid, firing when they should and not
// otherwise (promtool's own rule unit tests), and the same text as the documentation shows.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/files.h"

namespace {

std::string data_dir() { return std::string(NW_SOURCE_DIR) + "/tests/data/agent"; }

using nw::test::slurp;

int run(const std::string& cmd, std::string& output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(AgentAlerts, RulesAreValidAndTheirTestsPass) {
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  std::string out;
  EXPECT_EQ(run("cd " + data_dir() + " && /usr/bin/promtool check rules noisewatch-alerts.yml", out), 0) << out;
  out.clear();
  EXPECT_EQ(run("cd " + data_dir() + " && /usr/bin/promtool test rules noisewatch-alerts.test.yml", out), 0) << out;
}

TEST(AgentAlerts, TheDocumentationShowsTheTestedRules) {
  std::string rules = slurp(data_dir() + "/noisewatch-alerts.yml");
  ASSERT_FALSE(rules.empty());
  std::string doc = slurp(std::string(NW_SOURCE_DIR) + "/docs/agent.md");
  EXPECT_NE(doc.find("```yaml\n" + rules + "```"), std::string::npos)
      << "docs/agent.md must show tests/data/agent/noisewatch-alerts.yml verbatim";
}

}  // namespace
