// SPDX-License-Identifier: Apache-2.0
// What each URL of the agent answers: a pure function from method and target to a reply, so
// the HTTP plumbing (http_server.h) knows nothing about noise and the routing is unit-tested.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nw::agent {

struct HttpReply {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones, e.g. Allow
};

// A plain-text reply with this status and body (the default content type).
HttpReply text_reply(unsigned status, std::string body);

// The agent's content, produced on demand. None of them changes the machine.
struct Endpoints {
  std::function<std::string()> metrics;       // Prometheus text format
  std::function<std::string()> check_json;    // noisewatch.check/1; "" before the first run
  std::function<bool(std::string&)> healthy;  // fills a one-line reason
};

inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// GET and HEAD only (405 with Allow otherwise); the query string is ignored; 404 for unknown
// paths. For HEAD the caller sends the headers of the GET reply without its body.
HttpReply route(std::string_view method, std::string_view target, const Endpoints& endpoints);

}  // namespace nw::agent
