// SPDX-License-Identifier: Apache-2.0
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include "agent/agent.h"

#include <sys/utsname.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "agent/check_worker.h"
#include "agent/noise_ledger.h"
#include "agent/self_stats.h"
#include "common/errors.h"
#include "probes/noise_probe.h"
#include "runner/privileges.h"
#include "system/allowed_cpus.h"
#include "system/cpu_selection.h"
#include "system/cpulist.h"
#include "system/host_info.h"

namespace nw::agent {

namespace asio = boost::asio;

namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "";
}

// Everything the endpoints show. Lives on the io_context's thread, except the check worker.
class Agent {
 public:
  Agent(const AgentOptions& opts, std::vector<int> cpus, CheckWorker& checks)
      : opts_(opts),
        cpus_(std::move(cpus)),
        checks_(checks),
        ledger_(opts.top_n),
        probe_(probes::ProbeOptions{.watch_cpus = cpus_}),
        start_unix_(unix_now()),
        kernel_(kernel_release()) {
    collect();  // the counters start with the probe attached, not at the first scrape
  }

  void collect() {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<NoiseSample> window;
    for (auto& e : probe_.collect(true))
      if (std::binary_search(cpus_.begin(), cpus_.end(), e.cpu))
        window.push_back({e.cpu, std::move(e.source), e.count, e.time_ns});
    ledger_.add(window);
    last_collect_ = std::chrono::steady_clock::now();
    last_collect_unix_ = unix_now();
    collect_duration_s_ = std::chrono::duration<double>(last_collect_ - t0).count();
  }

  std::string metrics(const HttpStats& http, const WebConfigStats& web) {
    collect();
    AgentMetrics m;
    m.version = NOISEWATCH_VERSION;
    m.kernel = kernel_;
    m.watched_cpus = cpus_;
    m.top_n = opts_.top_n;
    m.noise = ledger_.series();
    for (int cpu : ledger_.cpus()) m.folded_sources[cpu] = ledger_.folded_sources(cpu);
    m.lost_events = probe_.lost_events();
    m.unavailable = probe_.unavailable();
    m.last_collect_unix = last_collect_unix_;
    m.collect_duration_s = collect_duration_s_;
    m.check = checks_.state();
    m.self = read_self_stats(start_unix_);
    m.http = http;
    m.web_config = web;
    return render_metrics(m);
  }

  bool healthy(std::string& why) const {
    auto age = std::chrono::steady_clock::now() - last_collect_;
    if (age > 3 * opts_.collect_interval + std::chrono::seconds(1)) {
      why = fmt::format("the probe was last read {:.0f} s ago", std::chrono::duration<double>(age).count());
      return false;
    }
    auto st = checks_.state();
    if (!st.report) {
      why = "the configuration checks have never completed: " + st.last_error;
      return false;
    }
    return true;
  }

 private:
  const AgentOptions& opts_;
  std::vector<int> cpus_;
  CheckWorker& checks_;
  NoiseLedger ledger_;
  probes::NoiseProbe probe_;
  double start_unix_;
  std::string kernel_;
  std::chrono::steady_clock::time_point last_collect_;
  double last_collect_unix_ = 0, collect_duration_s_ = 0;
};

asio::awaitable<void> collect_loop(asio::steady_timer& timer, Agent& agent, std::chrono::milliseconds every) {
  for (;;) {
    timer.expires_after(every);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;  // cancelled: shutting down
    agent.collect();
  }
}

bool is_loopback(const std::string& host) { return host.rfind("127.", 0) == 0 || host == "::1"; }

// What the start-up line says of the web config, and the warning an exposed agent deserves.
std::string security_note(const WebSecurity* sec) {
  if (!sec) return "";
  return fmt::format(" (--web-config {}: {}, {})", sec->path, sec->tls ? "TLS" : "no TLS",
                     sec->authenticates() ? "basic auth" : "no authentication");
}

void warn_if_exposed(const AgentOptions& opts, const WebSecurity* sec) {
  if (is_loopback(opts.listen.host)) return;
  if (!sec)
    fmt::print(stderr,
               "noisewatch agent: warning: {} is reachable beyond this machine without TLS or authentication; anyone "
               "who can reach it reads the names of the processes that disturb benchmarks and this machine's "
               "configuration. Give --web-config FILE (docs/agent.md)\n",
               format_listen_address(opts.listen));
  else if (!sec->tls && sec->authenticates())
    fmt::print(stderr,
               "noisewatch agent: warning: basic auth without TLS sends the password in clear on {}; add "
               "tls_server_config to {}\n",
               format_listen_address(opts.listen), sec->path);
}

// Serves until SIGTERM or SIGINT arrives; returns it. SIGHUP reloads the web config. The probe
// lives and dies inside: when this returns, every BPF program is detached and unloaded.
// `unavailable`: the note naming the online CPUs this process may not use ("" when none), for
// the start-up line.
int serve(const AgentOptions& opts, const std::vector<int>& cpus, const std::string& unavailable, CheckWorker& checks,
          std::shared_ptr<const WebSecurity> security) {
  asio::io_context io(1);
  // Before the probe loads: a signal during start-up still ends the agent cleanly.
  asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
  std::optional<Agent> agent;
  HttpServer* server_ptr = nullptr;
  WebConfigStats web;
  web.configured = security != nullptr;
  web.last_reload_success_unix = unix_now();
  // Bound before the probe loads, so that a busy port costs no eBPF load and unload.
  HttpServer server(
      io, opts.listen, opts.limits,
      [&](std::string_view method, std::string_view target) {
        Endpoints e;
        e.metrics = [&] { return agent->metrics(server_ptr->stats(), web); };
        e.check_json = [&] { return checks.json(); };
        e.healthy = [&](std::string& why) { return agent->healthy(why); };
        return route(method, target, e);
      },
      security);
  server_ptr = &server;
  agent.emplace(opts, cpus, checks);

  asio::steady_timer collect_timer(io);
  int stopped_by = 0;
  auto reload = [&] {
    if (opts.web_config.empty()) {
      fmt::print(stderr, "noisewatch agent: SIGHUP: no --web-config to reload\n");
      return;
    }
    ++web.reloads;
    try {
      server.set_security(load_web_security(opts.web_config));
      web.last_reload_ok = true;
      web.last_reload_success_unix = unix_now();
      fmt::print(stderr, "noisewatch agent: SIGHUP: reloaded {}\n", opts.web_config);
    } catch (const std::exception& e) {
      ++web.reload_failures;
      web.last_reload_ok = false;
      fmt::print(stderr, "noisewatch agent: SIGHUP: {}; keeping the previous web config\n", e.what());
    }
    std::fflush(stderr);
  };
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                             int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      signals.async_wait(on_signal);
      return;
    }
    stopped_by = signo;
    server.stop();
    collect_timer.cancel();
    checks.stop();
  };
  signals.async_wait(on_signal);
  server.start();
  checks.start();
  asio::co_spawn(io, collect_loop(collect_timer, *agent, opts.collect_interval), asio::detached);

  fmt::print(stderr,
             "noisewatch agent: listening on {}://{}/metrics (also /check, /healthz){}; watching CPUs {}{}; checks "
             "every {} s\n",
             server.tls() ? "https" : "http", format_listen_address(server.local_address()),
             security_note(security.get()), sys::format_cpulist(cpus), unavailable.empty() ? "" : "; " + unavailable,
             std::chrono::duration<double>(opts.check_interval).count());
  warn_if_exposed(opts, security.get());
  std::fflush(stderr);
  io.run();
  return stopped_by;
}

}  // namespace

int run_agent(const AgentOptions& opts) {
  // The web config first: a mistake in it is reported whoever runs the command.
  std::shared_ptr<const WebSecurity> security;
  if (!opts.web_config.empty()) security = load_web_security(opts.web_config);
  runner::require_bpf_privileges();
  // The CPUs this process may use, as for `check`: inside a cpuset container, the container's.
  auto selected = sys::select_cpus(sys::read_cpu_availability(), opts.cpus);
  if (selected.cpus.empty())
    throw Error("cannot read the online CPUs from /sys/devices/system/cpu/online; give --cpu LIST");
  const std::vector<int>& cpus = selected.cpus;

  // The first check runs before anything is served: a --cpu that is not online stops here.
  CheckWorker checks(opts.cpus, opts.check_interval);
  checks.run_once();

  int signo = serve(opts, cpus, sys::unavailable_note(selected.unavailable), checks, std::move(security));
  fmt::print(stderr, "noisewatch agent: stopped by {}; eBPF programs detached\n", strsignal(signo));
  return 0;
}

}  // namespace nw::agent
