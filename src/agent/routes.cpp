// SPDX-License-Identifier: Apache-2.0
#include "agent/routes.h"

namespace nw::agent {

HttpReply text_reply(unsigned status, std::string body) {
  HttpReply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

namespace {

constexpr std::string_view kIndex =
    "noisewatch agent\n"
    "  /metrics  noise per CPU and source, check statuses (Prometheus text format)\n"
    "  /check    the configuration checks (noisewatch.check/1 JSON)\n"
    "  /healthz  ok when the probe is read and the checks run\n";

}  // namespace

HttpReply route(std::string_view method, std::string_view target, const Endpoints& endpoints) {
  if (method != "GET" && method != "HEAD") {
    auto r = text_reply(405, "only GET and HEAD are served: the agent is read-only\n");
    r.headers.push_back({"Allow", "GET, HEAD"});
    return r;
  }
  std::string_view path = target.substr(0, target.find('?'));
  if (path == "/metrics") {
    auto r = text_reply(200, endpoints.metrics());
    r.content_type = std::string(kMetricsContentType);
    return r;
  }
  if (path == "/check") {
    std::string json = endpoints.check_json();
    if (json.empty()) return text_reply(503, "the configuration checks have not completed yet\n");
    auto r = text_reply(200, std::move(json));
    r.content_type = "application/json";
    return r;
  }
  if (path == "/healthz") {
    std::string why;
    bool ok = endpoints.healthy(why);
    return text_reply(ok ? 200 : 503, (ok ? "ok" : "unhealthy: " + why) + "\n");
  }
  if (path == "/") return text_reply(200, std::string(kIndex));
  return text_reply(404, "not found; see / for the endpoints\n");
}

}  // namespace nw::agent
