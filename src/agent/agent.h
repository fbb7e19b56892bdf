// SPDX-License-Identifier: Apache-2.0
// `noisewatch agent`: watches CPUs with the eBPF noise probe, re-runs the configuration checks,
// and serves both to Prometheus until SIGTERM or SIGINT; SIGHUP reloads the --web-config file.
#pragma once
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "agent/http_server.h"
#include "agent/listen_address.h"

namespace nw::agent {

struct AgentOptions {
  ListenAddress listen{"127.0.0.1", 9477};
  std::optional<std::vector<int>> cpus;  // nullopt: every CPU this process may use
  std::chrono::milliseconds check_interval{60000};
  // How often the probe's in-kernel maps are drained into the counters (also on every scrape).
  // Draining keeps the maps far from full however rarely anyone scrapes.
  std::chrono::milliseconds collect_interval{5000};
  size_t top_n = 10;  // named sources per CPU and category
  ServerLimits limits;
  std::string web_config;  // --web-config FILE: TLS and basic auth; "" plain HTTP, no auth
};

// Runs until SIGTERM or SIGINT; returns 0 once every BPF program is detached. Throws nw::Error
// when it cannot start (privileges, address in use, a CPU that is not online).
int run_agent(const AgentOptions& opts);

}  // namespace nw::agent
