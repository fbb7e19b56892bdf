// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "agent/agent_metrics.h"
#include "check/check_render.h"
#include "common/exposition.h"

namespace nw::agent {

namespace {

void noise_families(Exposition& x, const AgentMetrics& m) {
  x.family("noisewatch_cpu_noise_seconds_total", "counter",
           "Time taken from the watched CPU by each source (IRQs, softirqs, APIC vectors, NMIs, and the CPU time of "
           "every task as category preemption), since the agent started. Sources past the --top limit (per CPU and "
           "category) are "
           "folded into source=\"other\" of their category.");
  for (const auto& s : m.noise)
    x.sample("noisewatch_cpu_noise_seconds_total",
             {{"cpu", std::to_string(s.cpu)}, {"category", s.category}, {"source", s.name}}, double(s.time_ns) / 1e9);
  x.family("noisewatch_cpu_noise_events_total", "counter",
           "Occurrences of each noise source on the watched CPU since the agent started (same labels as "
           "noisewatch_cpu_noise_seconds_total).");
  for (const auto& s : m.noise)
    x.sample_int("noisewatch_cpu_noise_events_total",
                 {{"cpu", std::to_string(s.cpu)}, {"category", s.category}, {"source", s.name}}, s.events);
  x.family(
      "noisewatch_cpu_noise_folded_sources", "gauge",
      "Distinct sources folded into source=\"other\" on the CPU (counted up to 1024); raise --top when it matters.");
  for (const auto& [cpu, n] : m.folded_sources)
    x.sample_int("noisewatch_cpu_noise_folded_sources", {{"cpu", std::to_string(cpu)}}, n);
  x.family("noisewatch_cpu_watched", "gauge", "1 for each CPU the noise probe charges everything on.");
  for (int cpu : m.watched_cpus) x.sample_int("noisewatch_cpu_watched", {{"cpu", std::to_string(cpu)}}, 1);
  x.family(
      "noisewatch_lost_events_total", "counter",
      "Events the eBPF probe could not record (a full map, or a program the kernel skipped) since the agent started.");
  x.sample_int("noisewatch_lost_events_total", {}, m.lost_events);
  x.family("noisewatch_probe_unavailable", "gauge", "1 for each probe this kernel cannot provide, with the reason.");
  for (const auto& u : m.unavailable)
    x.sample_int("noisewatch_probe_unavailable", {{"probe", u.probe}, {"reason", u.reason}}, 1);
  x.family("noisewatch_noise_last_collect_timestamp_seconds", "gauge",
           "When the agent last read the probe's counters (Unix time).");
  x.sample("noisewatch_noise_last_collect_timestamp_seconds", {}, m.last_collect_unix);
  x.family("noisewatch_noise_collect_duration_seconds", "gauge",
           "How long the last read of the probe's counters took.");
  x.sample("noisewatch_noise_collect_duration_seconds", {}, m.collect_duration_s);
}

void check_families(Exposition& x, const CheckState& c) {
  // The same families as `noisewatch check --format prometheus`, so dashboards work on both.
  if (c.report) x.append(check::render_prometheus(*c.report));
  x.family("noisewatch_check_runs_total", "counter", "Runs of the configuration checks since the agent started.");
  x.sample_int("noisewatch_check_runs_total", {}, c.runs);
  x.family("noisewatch_check_errors_total", "counter",
           "Runs of the configuration checks that failed (the previous results stay exposed).");
  x.sample_int("noisewatch_check_errors_total", {}, c.errors);
  x.family("noisewatch_check_last_success_timestamp_seconds", "gauge",
           "When the configuration checks last completed (Unix time).");
  x.sample("noisewatch_check_last_success_timestamp_seconds", {}, c.last_success_unix);
  x.family("noisewatch_check_duration_seconds", "gauge", "How long the last run of the configuration checks took.");
  x.sample("noisewatch_check_duration_seconds", {}, c.last_duration_s);
}

void agent_families(Exposition& x, const AgentMetrics& m) {
  x.family("noisewatch_build_info", "gauge", "Always 1; the labels say which noisewatch runs on which kernel.");
  x.sample_int("noisewatch_build_info", {{"version", m.version}, {"kernel", m.kernel}}, 1);
  x.family("noisewatch_agent_top_sources", "gauge",
           "The --top limit: named sources per CPU and category before folding into other.");
  x.sample_int("noisewatch_agent_top_sources", {}, m.top_n);
  x.family("noisewatch_agent_cpu_seconds_total", "counter", "User and system CPU time of the agent process.");
  x.sample("noisewatch_agent_cpu_seconds_total", {}, m.self.cpu_seconds);
  x.family("noisewatch_agent_resident_memory_bytes", "gauge", "Resident memory of the agent process.");
  x.sample_int("noisewatch_agent_resident_memory_bytes", {}, m.self.resident_bytes);
  x.family("noisewatch_agent_open_fds", "gauge", "Open file descriptors of the agent process.");
  x.sample_int("noisewatch_agent_open_fds", {}, m.self.open_fds);
  x.family("noisewatch_agent_start_time_seconds", "gauge", "When the agent started (Unix time).");
  x.sample("noisewatch_agent_start_time_seconds", {}, m.self.start_time_unix);
  x.family("noisewatch_agent_http_responses_total", "counter", "HTTP responses sent, by status code.");
  for (const auto& [code, n] : m.http.responses)
    x.sample_int("noisewatch_agent_http_responses_total", {{"code", std::to_string(code)}}, n);
  x.family("noisewatch_agent_http_connections", "gauge", "HTTP connections open now.");
  x.sample_int("noisewatch_agent_http_connections", {}, m.http.connections_open);
  x.family("noisewatch_agent_http_connections_rejected_total", "counter",
           "Connections closed at once because --max-connections were already open.");
  x.sample_int("noisewatch_agent_http_connections_rejected_total", {}, m.http.connections_rejected);
  x.family("noisewatch_agent_http_timeouts_total", "counter",
           "Connections closed because the client was slower than --timeout to send a request or read a response (idle "
           "keep-alive connections are not counted).");
  x.sample_int("noisewatch_agent_http_timeouts_total", {}, m.http.connections_timed_out);
  x.family("noisewatch_agent_tls", "gauge",
           "1 when the agent serves HTTPS (--web-config with tls_server_config), else 0.");
  x.sample_int("noisewatch_agent_tls", {}, m.http.tls ? 1 : 0);
  if (m.http.tls) {
    x.family(
        "noisewatch_agent_tls_handshake_failures_total", "counter",
        "TLS connections that ended before or during the handshake (bad certificate, wrong protocol, plain HTTP).");
    x.sample_int("noisewatch_agent_tls_handshake_failures_total", {}, m.http.tls_handshake_failures);
  }
  if (m.web_config.configured) {
    x.family("noisewatch_agent_web_config_last_reload_successful", "gauge",
             "1 when the last load of the --web-config file (at start or on SIGHUP) worked; 0 when the agent kept the "
             "previous one.");
    x.sample_int("noisewatch_agent_web_config_last_reload_successful", {}, m.web_config.last_reload_ok ? 1 : 0);
    x.family("noisewatch_agent_web_config_last_reload_success_timestamp_seconds", "gauge",
             "When the --web-config file was last loaded successfully (Unix time).");
    x.sample("noisewatch_agent_web_config_last_reload_success_timestamp_seconds", {},
             m.web_config.last_reload_success_unix);
    x.family("noisewatch_agent_web_config_reloads_total", "counter",
             "Reloads of the --web-config file on SIGHUP, by result.");
    x.sample_int("noisewatch_agent_web_config_reloads_total", {{"result", "success"}},
                 m.web_config.reloads - m.web_config.reload_failures);
    x.sample_int("noisewatch_agent_web_config_reloads_total", {{"result", "failure"}}, m.web_config.reload_failures);
  }
}

}  // namespace

std::string render_metrics(const AgentMetrics& m) {
  Exposition x;
  noise_families(x, m);
  check_families(x, m.check);
  agent_families(x, m);
  return x.str();
}

}  // namespace nw::agent
