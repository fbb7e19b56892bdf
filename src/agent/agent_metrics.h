// SPDX-License-Identifier: Apache-2.0
// What /metrics shows, gathered into one value so that the rendering is a pure function.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/noise_ledger.h"
#include "check/finding.h"
#include "record/run_record.h"

namespace nw::agent {

struct CheckState {
  std::shared_ptr<const check::CheckReport> report;  // the last successful run; null before it
  uint64_t runs = 0, errors = 0;
  std::string last_error;
  double last_success_unix = 0;  // wall-clock seconds
  double last_duration_s = 0;
};

struct SelfStats {
  double cpu_seconds = 0;  // user + system of every agent thread
  uint64_t resident_bytes = 0;
  uint64_t open_fds = 0;
  double start_time_unix = 0;
};

struct HttpStats {
  std::map<unsigned, uint64_t> responses;  // HTTP status -> count
  uint64_t connections_open = 0, connections_rejected = 0, connections_timed_out = 0;
  uint64_t tls_handshake_failures = 0;  // including plain HTTP sent to the TLS port (answered 400)
  bool tls = false;
};

// The web config (--web-config): whether its last (re)load worked, for an alert on a rotation that
// went wrong.
struct WebConfigStats {
  bool configured = false;
  bool last_reload_ok = true;
  double last_reload_success_unix = 0;
  uint64_t reloads = 0, reload_failures = 0;
};

struct AgentMetrics {
  std::string version, kernel;
  std::vector<int> watched_cpus;
  size_t top_n = 0;
  std::vector<NoiseSeries> noise;
  std::map<int, size_t> folded_sources;  // per CPU
  uint64_t lost_events = 0;
  std::vector<Unavailable> unavailable;
  double last_collect_unix = 0, collect_duration_s = 0;
  CheckState check;
  SelfStats self;
  HttpStats http;
  WebConfigStats web_config;
};

// Prometheus text exposition format 0.0.4 (valid for `promtool check metrics`).
std::string render_metrics(const AgentMetrics& m);

}  // namespace nw::agent
