// SPDX-License-Identifier: Apache-2.0
// `noisewatch agent` end to end: the real binary, the real eBPF probe, real HTTP clients (Beast,
// raw sockets) and a real Prometheus server, all on 127.0.0.1. Needs root.
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "support/agent_helpers.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using namespace std::chrono_literals;
using nw::test::slurp;

struct Reply {
  unsigned status = 0;
  std::string body, content_type, allow;
  uint64_t content_length = 0;
};

// One request with Beast; a 10 s receive timeout on the socket keeps a broken agent from
// hanging the test.
Reply request(uint16_t port, const std::string& target, http::verb method = http::verb::get) {
  asio::io_context io;
  asio::ip::tcp::socket sock(io);
  sock.connect({asio::ip::make_address("127.0.0.1"), port});
  timeval tv{10, 0};
  setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  http::request<http::empty_body> req{method, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.keep_alive(false);
  http::write(sock, req);
  beast::flat_buffer buf;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  parser.skip(method == http::verb::head);
  http::read(sock, buf, parser);
  auto& res = parser.get();
  Reply r;
  r.status = res.result_int();
  r.body = res.body();
  r.content_type = std::string(res[http::field::content_type]);
  r.allow = std::string(res[http::field::allow]);
  if (res.has_content_length()) r.content_length = std::stoull(std::string(res[http::field::content_length]));
  return r;
}

bool send_raw(int fd, const std::string& s) {
  return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size());
}

// Everything the server sends until it closes the connection or `limit` passes.
struct RawResult {
  std::string data;
  bool closed = false;
  std::chrono::milliseconds waited{0};
};
RawResult read_until_close(int fd, std::chrono::milliseconds limit) {
  RawResult r;
  auto t0 = std::chrono::steady_clock::now();
  auto deadline = t0 + limit;
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, int(std::max<int64_t>(1, left.count()))) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.data.append(buf, size_t(n));
  }
  r.waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  return r;
}

std::string status_line(const std::string& raw) { return raw.substr(0, raw.find("\r\n")); }

// Runs `cmd` with `input` on its stdin; returns the exit status and fills `output`.
int pipe_through(const std::string& cmd, const std::string& input, std::string& output) {
  std::string out_file = temp_path("pipe.out");
  FILE* p = popen((cmd + " > " + out_file + " 2>&1").c_str(), "w");
  if (!p) return -1;
  fwrite(input.data(), 1, input.size(), p);
  int status = pclose(p);
  output = slurp(out_file);
  std::filesystem::remove(out_file);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// IDs of the BPF programs a process holds, from its descriptors' fdinfo.
std::set<int> bpf_prog_ids(pid_t pid) {
  std::set<int> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fdinfo", ec)) {
    std::ifstream f(e.path());
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("prog_id:", 0) == 0) ids.insert(std::stoi(line.substr(8)));
  }
  return ids;
}

// The programs loaded in the kernel right now: id -> name.
std::map<int, std::string> loaded_programs() {
  std::string out_file = temp_path("bpftool.json");
  std::map<int, std::string> progs;
  if (std::system(("bpftool -j prog show > " + out_file + " 2>/dev/null").c_str()) != 0) return progs;
  auto j = nlohmann::json::parse(slurp(out_file), nullptr, false);
  std::filesystem::remove(out_file);
  if (!j.is_array()) return progs;
  for (const auto& p : j) progs[p.value("id", 0)] = p.value("name", "");
  return progs;
}

class AgentE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A short --timeout so that the slow-client test does not wait for the default 10 s.
    agent_ = new Agent({"--timeout", "2", "--max-connections", "8", "--check-interval", "1"});
  }
  static void TearDownTestSuite() {
    delete agent_;
    agent_ = nullptr;
  }
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (eBPF)";
    ASSERT_NE(agent_->port(), 0) << "the agent did not start: " << agent_->stderr_text();
  }
  static Agent* agent_;
};
Agent* AgentE2E::agent_ = nullptr;

TEST_F(AgentE2E, MetricsPassPromtoolAndCountersOnlyGrow) {
  auto first = request(agent_->port(), "/metrics");
  ASSERT_EQ(first.status, 200u);
  EXPECT_EQ(first.content_type, "text/plain; version=0.0.4; charset=utf-8");
  std::string lint;
  EXPECT_EQ(pipe_through("promtool check metrics", first.body, lint), 0) << lint;

  // The local timer ticks on every CPU that runs anything, and the probe sees it: checked below
  // over 1.5 s, not in this first scrape, which may follow the agent's start by a few ms in which
  // an idle (tickless) CPU 0 need not tick at all.
  auto s1 = samples(first.body);
  EXPECT_EQ(s1[R"(noisewatch_build_info{version=")" NOISEWATCH_VERSION R"(",kernel=")" +
               [] {
                 std::string k = slurp("/proc/sys/kernel/osrelease");
                 return k.substr(0, k.find('\n'));
               }() +
               "\"}"],
            1);
  EXPECT_TRUE(s1.count(R"(noisewatch_check_status{check="smt"})"));
  EXPECT_GE(s1["noisewatch_lost_events_total"], 0);

  std::this_thread::sleep_for(1500ms);
  auto s2 = samples(request(agent_->port(), "/metrics").body);
  size_t counters = 0;
  for (const auto& [series, v] : s1) {
    if (series.find("_total") == std::string::npos) continue;
    ++counters;
    ASSERT_TRUE(s2.count(series)) << series << " vanished between scrapes";
    EXPECT_GE(s2[series], v) << series;
  }
  EXPECT_GT(counters, 5u);
  EXPECT_GT(s2[R"(noisewatch_cpu_noise_events_total{cpu="0",category="irq",source="local_timer"})"],
            s1[R"(noisewatch_cpu_noise_events_total{cpu="0",category="irq",source="local_timer"})"]);
}

TEST_F(AgentE2E, ChecksAreRerunInTheBackground) {
  // --check-interval 1; the check thread runs at nice 19, so give a loaded machine some time.
  double first = samples(request(agent_->port(), "/metrics").body)["noisewatch_check_runs_total"];
  EXPECT_GE(first, 1);
  double now = first;
  for (int i = 0; i < 250 && now <= first; ++i) {
    std::this_thread::sleep_for(100ms);
    now = samples(request(agent_->port(), "/metrics").body)["noisewatch_check_runs_total"];
  }
  EXPECT_GT(now, first);
}

TEST_F(AgentE2E, CheckHealthAndReadOnlyRouting) {
  auto check = request(agent_->port(), "/check");
  ASSERT_EQ(check.status, 200u);
  auto j = nlohmann::json::parse(check.body);
  EXPECT_EQ(j["schema"], "noisewatch.check/1");
  EXPECT_TRUE(j["findings"].is_array());
  EXPECT_EQ(request(agent_->port(), "/healthz").body, "ok\n");
  EXPECT_EQ(request(agent_->port(), "/nope").status, 404u);
  auto post = request(agent_->port(), "/metrics", http::verb::post);
  EXPECT_EQ(post.status, 405u);
  EXPECT_EQ(post.allow, "GET, HEAD");
  auto head = request(agent_->port(), "/metrics", http::verb::head);
  EXPECT_EQ(head.status, 200u);
  EXPECT_TRUE(head.body.empty());
  EXPECT_GT(head.content_length, 100u);
}

TEST_F(AgentE2E, MalformedAndOversizedRequestsAreRefusedAndTheNextOneIsServed) {
  struct Case {
    std::string request, expected_status;
  };
  std::vector<Case> cases = {
      {"THIS IS NOT HTTP\r\n\r\n", "HTTP/1.1 400"},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n", "HTTP/1.1 431"},
      {"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n", "HTTP/1.1 413"},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", "HTTP/1.1 400"},
  };
  for (const auto& c : cases) {
    int fd = connect_raw(agent_->port());
    ASSERT_GE(fd, 0);
    send_raw(fd, c.request);
    auto r = read_until_close(fd, 5s);
    close(fd);
    EXPECT_TRUE(r.closed) << c.expected_status;
    EXPECT_EQ(status_line(r.data).substr(0, 12), c.expected_status) << status_line(r.data);
    EXPECT_EQ(request(agent_->port(), "/healthz").status, 200u) << "after " << c.expected_status;
  }
}

TEST_F(AgentE2E, SlowClientsAreCutOffAndDoNotBlockOthers) {
  // One says nothing at all, one trickles a request a byte per 300 ms.
  int silent = connect_raw(agent_->port());
  int trickle = connect_raw(agent_->port());
  ASSERT_GE(silent, 0);
  ASSERT_GE(trickle, 0);
  auto t0 = std::chrono::steady_clock::now();
  std::string slow = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  size_t sent = 0;
  bool trickle_closed = false;
  // Meanwhile other clients are served at once.
  EXPECT_EQ(request(agent_->port(), "/metrics").status, 200u);
  while (std::chrono::steady_clock::now() - t0 < 5s && !trickle_closed) {
    if (sent < slow.size() && !send_raw(trickle, slow.substr(sent++, 1))) trickle_closed = true;
    auto r = read_until_close(trickle, 300ms);
    trickle_closed = trickle_closed || r.closed;
  }
  // --timeout 2 covers the whole request, not each byte.
  EXPECT_TRUE(trickle_closed);
  EXPECT_LT(sent, slow.size()) << "the trickling client got its request through";
  auto r = read_until_close(silent, 3s);
  EXPECT_TRUE(r.closed) << "the silent connection was left open";
  EXPECT_TRUE(r.data.empty());
  close(silent);
  close(trickle);
  auto s = samples(request(agent_->port(), "/metrics").body);
  EXPECT_GE(s["noisewatch_agent_http_timeouts_total"], 2);
}

TEST_F(AgentE2E, ConnectionsPastTheLimitAreClosedAtOnce) {
  std::vector<int> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(connect_raw(agent_->port()));
  std::this_thread::sleep_for(200ms);  // let the agent accept them all
  int extra = connect_raw(agent_->port());
  ASSERT_GE(extra, 0);
  auto r = read_until_close(extra, 1500ms);
  EXPECT_TRUE(r.closed);
  EXPECT_LT(r.waited, 1500ms);
  close(extra);
  for (int fd : idle) close(fd);
  // Once they are gone, service resumes.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    try {
      served = request(agent_->port(), "/healthz").status == 200;
    } catch (const std::exception&) {
    }
    if (!served) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(served);
  auto s = samples(request(agent_->port(), "/metrics").body);
  EXPECT_GE(s["noisewatch_agent_http_connections_rejected_total"], 1);
}

TEST_F(AgentE2E, PrometheusScrapesTheAgent) {
  if (access("/usr/bin/prometheus", X_OK) != 0) GTEST_SKIP() << "prometheus is not installed";
  std::string dir = temp_path("prometheus");
  std::filesystem::create_directories(dir + "/data");
  std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                            "scrape_configs:\n  - job_name: noisewatch\n    static_configs:\n"
                                            "      - targets: ['127.0.0.1:"
                                         << agent_->port() << "']\n";
  uint16_t port = free_port();
  pid_t prom =
      spawn({"/usr/bin/prometheus", "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/data",
             "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"},
            dir + "/out", dir + "/err");
  auto query = [&](const std::string& q) -> std::optional<nlohmann::json> {
    try {
      auto r = request(port, "/api/v1/query?query=" + q);
      if (r.status != 200) return std::nullopt;
      auto j = nlohmann::json::parse(r.body);
      if (j["status"] != "success" || j["data"]["result"].empty()) return std::nullopt;
      return j["data"]["result"];
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
  std::optional<nlohmann::json> up, events, check;
  for (int i = 0; i < 60 && !(up && events && check); ++i) {
    std::this_thread::sleep_for(500ms);
    up = query("up%7Bjob%3D%22noisewatch%22%7D");
    events = query("noisewatch_cpu_noise_events_total%7Bcategory%3D%22irq%22%2Csource%3D%22local_timer%22%7D");
    check = query("noisewatch_check_status%7Bcheck%3D%22smt%22%7D");
  }
  kill(prom, SIGTERM);
  waitpid(prom, nullptr, 0);
  std::string prom_err = slurp(dir + "/err");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(up) << "Prometheus never reported the target: " << prom_err;
  EXPECT_EQ((*up)[0]["value"][1], "1");
  ASSERT_TRUE(events) << "no noisewatch series in Prometheus";
  EXPECT_GT(std::stod((*events)[0]["value"][1].get<std::string>()), 0);
  ASSERT_TRUE(check);
}

TEST(AgentLifecycle, SigtermExitsZeroAndUnloadsEveryProgram) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (eBPF)";
  Agent agent;
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  auto ours = bpf_prog_ids(agent.pid());
  ASSERT_FALSE(ours.empty()) << "the agent holds no BPF program";
  auto before = loaded_programs();
  std::set<std::string> names;
  for (int id : ours) names.insert(before[id]);
  EXPECT_TRUE(names.count("on_switch") && names.count("on_irq_exit"));
  // An open keep-alive connection must not hold the shutdown up.
  int fd = connect_raw(agent.port());
  EXPECT_EQ(agent.terminate(), 0) << agent.stderr_text();
  close(fd);
  auto after = loaded_programs();
  for (int id : ours) EXPECT_FALSE(after.count(id)) << "program " << id << " (" << before[id] << ") is still loaded";
  EXPECT_NE(agent.stderr_text().find("eBPF programs detached"), std::string::npos);
}

TEST(AgentLifecycle, BadOptionsAndABusyPortExit125WithOneLine) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"--listen", "localhost:1"}, std::vector<std::string>{"--cpu", "4096"},
        std::vector<std::string>{"--check-interval", "0"}, std::vector<std::string>{"--top", "-1"}}) {
    std::vector<std::string> argv = {noisewatch(), "agent"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string out = temp_path("bad.out"), err = temp_path("bad.err");
    int status;
    waitpid(spawn(argv, out, err), &status, 0);
    EXPECT_EQ(WEXITSTATUS(status), 125) << args[0];
    std::string text = slurp(err);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    std::filesystem::remove(out);
    std::filesystem::remove(err);
  }
  if (geteuid() != 0) GTEST_SKIP() << "needs root (eBPF)";
  // A port somebody else holds.
  int holder = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  listen(holder, 1);
  socklen_t len = sizeof a;
  getsockname(holder, reinterpret_cast<sockaddr*>(&a), &len);
  std::string out = temp_path("busy.out"), err = temp_path("busy.err");
  int status;
  waitpid(spawn({noisewatch(), "agent", "--listen", "127.0.0.1:" + std::to_string(ntohs(a.sin_port))}, out, err),
          &status, 0);
  close(holder);
  EXPECT_EQ(WEXITSTATUS(status), 125);
  EXPECT_NE(slurp(err).find("choose another --listen"), std::string::npos) << slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
}

}  // namespace
}  // namespace nw::e2e
