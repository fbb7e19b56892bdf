// SPDX-License-Identifier: Apache-2.0
// `noisewatch agent`: options and their validation; the service itself is in agent.cpp.
#include <memory>

#include <fmt/format.h>

#include "agent/agent.h"
#include "check/check_context.h"
#include "cli/commands.h"
#include "common/errors.h"

namespace nw::cli {

namespace {

struct AgentArgs {
  std::string listen = "127.0.0.1:9477", cpu, web_config;
  double check_interval = 60, timeout = 10;
  long long top = 10, max_connections = 16;  // signed, so that -1 is refused rather than wrapped
};

agent::AgentOptions to_options(const AgentArgs& a) {
  agent::AgentOptions o;
  o.listen = agent::parse_listen_address(a.listen);
  if (!a.cpu.empty()) o.cpus = check::parse_cpu_option(a.cpu);
  if (!(a.check_interval >= 1 && a.check_interval <= 86400))
    throw Error(fmt::format("--check-interval {}: give seconds from 1 to 86400", a.check_interval));
  o.check_interval = std::chrono::milliseconds(int64_t(a.check_interval * 1000));
  if (a.top < 0 || a.top > 1000)
    throw Error(fmt::format("--top {}: give 0 to 1000 named sources per CPU and category", a.top));
  o.top_n = size_t(a.top);
  if (a.max_connections < 1 || a.max_connections > 4096)
    throw Error(fmt::format("--max-connections {}: give 1 to 4096", a.max_connections));
  o.limits.max_connections = size_t(a.max_connections);
  if (!(a.timeout > 0 && a.timeout <= 3600))
    throw Error(fmt::format("--timeout {}: give seconds from 0.001 to 3600", a.timeout));
  o.limits.timeout = std::chrono::milliseconds(std::max<int64_t>(1, int64_t(a.timeout * 1000)));
  o.web_config = a.web_config;
  return o;
}

}  // namespace

void register_agent(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("agent", "serve noise and check metrics for Prometheus");
  auto args = std::make_shared<AgentArgs>();
  sub->add_option("--listen", args->listen,
                  "ADDR:PORT to serve /metrics, /check and /healthz on (port 0: any free one)")
      ->capture_default_str();
  sub->add_option("--cpu", args->cpu,
                  "CPUs to watch, e.g. 2-3 (default: every CPU this process may use: affinity, cpuset)");
  sub->add_option("--check-interval", args->check_interval, "seconds between runs of the configuration checks")
      ->capture_default_str();
  sub->add_option("--top", args->top,
                  "named noise sources per CPU and category; later ones are folded into source=\"other\"")
      ->capture_default_str();
  sub->add_option("--max-connections", args->max_connections, "open HTTP connections at most; more are closed at once")
      ->capture_default_str();
  sub->add_option("--timeout", args->timeout, "seconds a client has to send a request or read a reply")
      ->capture_default_str();
  sub->add_option("--web-config", args->web_config,
                  "TLS and basic auth from an exporter-toolkit web config file (tls_server_config, basic_auth_users), "
                  "as node_exporter's --web.config.file; reloaded on SIGHUP")
      ->type_name("FILE");
  sub->footer(
      "Runs until SIGTERM or SIGINT (exit 0, every eBPF program detached); SIGHUP reloads --web-config (a bad\n"
      "file keeps the previous configuration). Needs root or CAP_BPF+CAP_PERFMON.\n"
      "See docs/agent.md for the systemd unit, TLS and basic auth, the Prometheus scrape config and example alerts.");
  sub->callback([&action, args] { action = [args] { return agent::run_agent(to_options(*args)); }; });
}

}  // namespace nw::cli
