// SPDX-License-Identifier: Apache-2.0
// The agent's URL space: read-only, small, and precise about what it refuses.
#include <gtest/gtest.h>

#include "agent/routes.h"

namespace nw::agent {
namespace {

struct Fake {
  int metrics_calls = 0;
  std::string check = "{\"schema\": \"noisewatch.check/1\"}";
  bool ok = true;
  Endpoints endpoints() {
    return {[this] {
              ++metrics_calls;
              return std::string("noisewatch_up 1\n");
            },
            [this] { return check; },
            [this](std::string& why) {
              if (!ok) why = "probe stale";
              return ok;
            }};
  }
};

TEST(AgentRoutes, MetricsInTheTextFormat) {
  Fake f;
  auto r = route("GET", "/metrics", f.endpoints());
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r.body, "noisewatch_up 1\n");
  // Prometheus may add parameters to the scrape URL; they change nothing.
  EXPECT_EQ(route("GET", "/metrics?x=1", f.endpoints()).status, 200u);
  EXPECT_EQ(f.metrics_calls, 2);
}

TEST(AgentRoutes, HeadIsAllowedAndOtherMethodsAreRefusedWithoutRunningAnything) {
  Fake f;
  EXPECT_EQ(route("HEAD", "/metrics", f.endpoints()).status, 200u);
  for (const char* m : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "get"}) {
    auto r = route(m, "/metrics", f.endpoints());
    EXPECT_EQ(r.status, 405u) << m;
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].first, "Allow");
    EXPECT_EQ(r.headers[0].second, "GET, HEAD");
  }
  EXPECT_EQ(f.metrics_calls, 1);
}

TEST(AgentRoutes, CheckIsJsonAndUnavailableBeforeTheFirstRun) {
  Fake f;
  auto r = route("GET", "/check", f.endpoints());
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "application/json");
  f.check.clear();
  EXPECT_EQ(route("GET", "/check", f.endpoints()).status, 503u);
}

TEST(AgentRoutes, HealthSaysWhy) {
  Fake f;
  EXPECT_EQ(route("GET", "/healthz", f.endpoints()).body, "ok\n");
  f.ok = false;
  auto r = route("GET", "/healthz", f.endpoints());
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(r.body, "unhealthy: probe stale\n");
}

TEST(AgentRoutes, UnknownPathsAre404) {
  Fake f;
  for (const char* t : {"/metricsx", "/metrics/", "/../etc/passwd", "*", "http://x/metrics", ""})
    EXPECT_EQ(route("GET", t, f.endpoints()).status, 404u) << t;
  EXPECT_EQ(route("GET", "/", f.endpoints()).status, 200u);
}

}  // namespace
}  // namespace nw::agent
