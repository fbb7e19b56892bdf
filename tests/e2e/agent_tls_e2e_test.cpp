// SPDX-License-Identifier: Apache-2.0
// `noisewatch agent --web-config`: TLS and basic auth as Prometheus exporters do them, end to end.
// The real binary and eBPF probe; certificates made here with the openssl CLI, the password hash
// with htpasswd (apache2-utils); curl and a real Prometheus server as the clients. Needs root.
#include <poll.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/agent_helpers.h"
#include "support/run_helpers.h"

namespace nw::e2e {
namespace {

// A shell command's exit status (-1 when it did not exit).
int sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool have(const char* tool) { return sh(std::string("command -v ") + tool + " >/dev/null 2>&1") == 0; }

struct Curl {
  int exit = -1;
  std::string code, body, headers;
};

// One request with curl: `args` are its options and the URL.
Curl curl(const std::string& args) {
  std::string body = temp_path("curl.body"), head = temp_path("curl.head"), code = temp_path("curl.code");
  Curl c;
  c.exit = sh("curl -sS --max-time 10 -o " + body + " -D " + head + " -w '%{http_code}' " + args + " > " + code +
              " 2>/dev/null");
  c.code = slurp(code);
  c.body = slurp(body);
  c.headers = slurp(head);
  for (const auto& f : {body, head, code}) std::filesystem::remove(f);
  return c;
}

// A directory of certificates made with the openssl CLI (EC keys: quick to make).
class Pki {
 public:
  Pki() : dir_(temp_path("pki")) { std::filesystem::create_directories(dir_); }
  ~Pki() { std::filesystem::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  bool ca(const std::string& name) {
    return sh("cd " + dir_ + " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " +
              name + ".key -out " + name + ".crt -days 2 -subj '/CN=" + name + "' >/dev/null 2>&1") == 0;
  }
  // A certificate for `name` signed by `ca`, with these subject alternative names.
  bool cert(const std::string& name, const std::string& ca, const std::string& san) {
    return sh("cd " + dir_ + " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name +
              ".key -out " + name + ".csr -subj '/CN=" + name + "' >/dev/null 2>&1 && printf 'subjectAltName=" + san +
              "\\n' > " + name + ".ext && openssl x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca +
              ".key -CAcreateserial -out " + name + ".crt -days 2 -extfile " + name + ".ext >/dev/null 2>&1") == 0;
  }

 private:
  std::string dir_;
};

// The bcrypt hash htpasswd makes of a password (cost 5: quick, and still bcrypt).
std::string bcrypt_hash(const std::string& password) {
  std::string out = capture_output("htpasswd -nbBC 5 '' '" + password + "'");
  auto colon = out.find(':');
  std::string h = colon == std::string::npos ? "" : out.substr(colon + 1);
  while (!h.empty() && (h.back() == '\n' || h.back() == '\r')) h.pop_back();
  return h;
}

void write(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, path);  // as a deployment tool swaps a file: never half written
}

bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
  for (auto deadline = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < deadline;) {
    if (done()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return done();
}

class AgentTlsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have("openssl") || !have("htpasswd") || !have("curl")) return;
    pki_ = new Pki;
    ok_ = pki_->ca("ca1") && pki_->cert("server", "ca1", "IP:127.0.0.1,DNS:localhost") &&
          pki_->cert("client", "ca1", "DNS:prometheus.lab") && pki_->cert("nosan", "ca1", "DNS:other.lab") &&
          pki_->ca("stranger");
    hash_ = bcrypt_hash(kPassword);
  }
  static void TearDownTestSuite() {
    delete pki_;
    pki_ = nullptr;
  }
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (eBPF)";
    ASSERT_TRUE(pki_) << "the tests need openssl, htpasswd (apache2-utils) and curl";
    ASSERT_TRUE(ok_) << "openssl could not make the test certificates";
    ASSERT_EQ(hash_.rfind("$2y$05$", 0), 0u) << hash_;
  }

  static std::string tls_section(const std::string& extra = "") {
    return "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n" + extra;
  }
  static std::string users() { return "basic_auth_users:\n  prometheus: " + hash_ + "\n"; }
  std::string url(const Agent& a, const std::string& path = "/metrics") const {
    return "https://127.0.0.1:" + std::to_string(a.port()) + path;
  }
  std::string ca(const std::string& name = "ca1") const { return " --cacert " + pki_->path(name + ".crt") + " "; }

  static constexpr const char* kPassword = "scrape me";
  static Pki* pki_;
  static bool ok_;
  static std::string hash_;
};
Pki* AgentTlsE2E::pki_ = nullptr;
bool AgentTlsE2E::ok_ = false;
std::string AgentTlsE2E::hash_;

TEST_F(AgentTlsE2E, CredentialsAreRequiredAndPlainHttpIsRefused) {
  write(pki_->path("web.yml"), tls_section() + users());
  Agent agent({"--web-config", pki_->path("web.yml")});
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  EXPECT_NE(agent.stderr_text().find("listening on https://"), std::string::npos) << agent.stderr_text();

  Curl none = curl(ca() + url(agent));
  EXPECT_EQ(none.code, "401");
  EXPECT_NE(none.headers.find("WWW-Authenticate: Basic"), std::string::npos) << none.headers;
  EXPECT_EQ(curl(ca() + "-u prometheus:wrong " + url(agent)).code, "401");
  EXPECT_EQ(curl(ca() + "-u nobody:'" + std::string(kPassword) + "' " + url(agent)).code, "401") << "an unknown user";
  Curl right = curl(ca() + "-u prometheus:'" + std::string(kPassword) + "' " + url(agent));
  ASSERT_EQ(right.code, "200");
  EXPECT_NE(right.body.find("noisewatch_agent_tls 1\n"), std::string::npos);

  // Plain HTTP to the HTTPS port: told so, and nothing served.
  Curl plain = curl("http://127.0.0.1:" + std::to_string(agent.port()) + "/metrics");
  EXPECT_EQ(plain.code, "400");
  EXPECT_NE(plain.body.find("HTTP request to an HTTPS server"), std::string::npos) << plain.body;
  EXPECT_EQ(plain.body.find("noisewatch_"), std::string::npos);

  // A broken handshake and a client that never says anything do not hold up anyone else.
  int garbage = connect_raw(agent.port()), silent = connect_raw(agent.port());
  ASSERT_GE(garbage, 0);
  const char bad_hello[] = "\x16\x03\x01\x00\x08garbage!";
  ASSERT_EQ(::send(garbage, bad_hello, sizeof bad_hello - 1, MSG_NOSIGNAL), ssize_t(sizeof bad_hello - 1));
  auto t0 = std::chrono::steady_clock::now();
  Curl during = curl(ca() + "-u prometheus:'" + std::string(kPassword) + "' " + url(agent));
  EXPECT_EQ(during.code, "200");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  pollfd p{garbage, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 5000), 1) << "the bad handshake was not ended";
  close(garbage);
  close(silent);
  auto s = samples(curl(ca() + "-u prometheus:'" + std::string(kPassword) + "' " + url(agent)).body);
  EXPECT_GE(s["noisewatch_agent_tls_handshake_failures_total"], 2) << "plain HTTP and the bad hello";
  EXPECT_GE(s["noisewatch_agent_http_responses_total{code=\"401\"}"], 3);
  EXPECT_EQ(agent.terminate(), 0) << agent.stderr_text();
}

TEST_F(AgentTlsE2E, PrometheusScrapesOverTlsWithBasicAuth) {
  if (access("/usr/bin/prometheus", X_OK) != 0) GTEST_SKIP() << "prometheus is not installed";
  write(pki_->path("web.yml"), tls_section() + users());
  Agent agent({"--web-config", pki_->path("web.yml")});
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  std::string dir = temp_path("prometheus");
  std::filesystem::create_directories(dir + "/data");
  // The scrape config docs/agent.md shows.
  std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                            "scrape_configs:\n  - job_name: noisewatch\n    scheme: https\n"
                                            "    tls_config:\n      ca_file: "
                                         << pki_->path("ca1.crt") << "\n    basic_auth:\n      username: prometheus\n"
                                         << "      password: '" << kPassword << "'\n"
                                         << "    static_configs:\n      - targets: ['127.0.0.1:" << agent.port()
                                         << "']\n";
  uint16_t port = free_port();
  pid_t prom =
      spawn({"/usr/bin/prometheus", "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/data",
             "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"},
            dir + "/out", dir + "/err");
  auto query = [&](const std::string& q) -> std::optional<std::string> {
    Curl c = curl("'http://127.0.0.1:" + std::to_string(port) + "/api/v1/query?query=" + q + "'");
    auto j = nlohmann::json::parse(c.body, nullptr, false);
    if (c.code != "200" || j.is_discarded() || j["status"] != "success" || j["data"]["result"].empty())
      return std::nullopt;
    return j["data"]["result"][0]["value"][1].get<std::string>();
  };
  std::optional<std::string> up, tls;
  wait_for(
      [&] {
        up = query("up%7Bjob%3D%22noisewatch%22%7D");
        tls = query("noisewatch_agent_tls");
        return up == "1" && tls;
      },
      30s);
  std::string targets = curl("http://127.0.0.1:" + std::to_string(port) + "/api/v1/targets").body;
  kill(prom, SIGTERM);
  waitpid(prom, nullptr, 0);
  std::string prom_err = slurp(dir + "/err");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(up) << "Prometheus never reported the target: " << prom_err << targets;
  EXPECT_EQ(*up, "1") << targets;
  EXPECT_EQ(tls, "1") << "the series Prometheus stored came from the TLS agent";
  auto s = samples(curl(ca() + "-u prometheus:'" + std::string(kPassword) + "' " + url(agent)).body);
  // Prometheus's scrapes (this request is counted once answered).
  EXPECT_GE(s["noisewatch_agent_http_responses_total{code=\"200\"}"], 1);
  EXPECT_EQ(agent.terminate(), 0);
}

TEST_F(AgentTlsE2E, SighupServesARotatedCertificateWithoutARestart) {
  // Its own copies: the rotation replaces them.
  std::filesystem::copy_file(pki_->path("server.crt"), pki_->path("rot.crt"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(pki_->path("server.key"), pki_->path("rot.key"),
                             std::filesystem::copy_options::overwrite_existing);
  write(pki_->path("rot.yml"), "tls_server_config:\n  cert_file: rot.crt\n  key_file: rot.key\n");
  Agent agent({"--web-config", pki_->path("rot.yml")});
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  ASSERT_EQ(curl(ca("ca1") + url(agent)).code, "200");
  EXPECT_NE(curl(ca("ca2") + url(agent)).exit, 0) << "no CA2 yet";

  // A new CA and certificate, swapped in place, then SIGHUP.
  ASSERT_TRUE(pki_->ca("ca2") && pki_->cert("server2", "ca2", "IP:127.0.0.1"));
  write(pki_->path("rot.crt"), slurp(pki_->path("server2.crt")));
  write(pki_->path("rot.key"), slurp(pki_->path("server2.key")));
  kill(agent.pid(), SIGHUP);
  ASSERT_TRUE(wait_for([&] { return agent.stderr_text().find("SIGHUP: reloaded") != std::string::npos; }))
      << agent.stderr_text();
  EXPECT_EQ(curl(ca("ca2") + url(agent)).code, "200") << "the rotated certificate is served";
  Curl old = curl(ca("ca1") + url(agent));
  EXPECT_NE(old.exit, 0) << "the old certificate is gone";
  EXPECT_EQ(kill(agent.pid(), 0), 0) << "the same process";

  // A broken file on reload keeps the configuration that works, and says why.
  write(pki_->path("rot.yml"), "tls_server_config:\n  cert_file: missing.crt\n  key_file: rot.key\n");
  kill(agent.pid(), SIGHUP);
  ASSERT_TRUE(wait_for([&] {
    return agent.stderr_text().find("keeping the previous web config") != std::string::npos;
  })) << agent.stderr_text();
  EXPECT_NE(agent.stderr_text().find("tls_server_config.cert_file: cannot read"), std::string::npos)
      << agent.stderr_text();
  Curl still = curl(ca("ca2") + url(agent));
  ASSERT_EQ(still.code, "200");
  auto s = samples(still.body);
  EXPECT_EQ(s["noisewatch_agent_web_config_last_reload_successful"], 0);
  EXPECT_EQ(s["noisewatch_agent_web_config_reloads_total{result=\"success\"}"], 1);
  EXPECT_EQ(s["noisewatch_agent_web_config_reloads_total{result=\"failure\"}"], 1);
  EXPECT_EQ(agent.terminate(), 0);
}

TEST_F(AgentTlsE2E, MutualTlsRefusesAClientWithoutAnAcceptedCertificate) {
  write(pki_->path("mtls.yml"),
        tls_section("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca1.crt\n"));
  Agent agent({"--web-config", pki_->path("mtls.yml")});
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  auto with = [&](const std::string& name) {
    return curl(ca() + "--cert " + pki_->path(name + ".crt") + " --key " + pki_->path(name + ".key") + " " +
                url(agent));
  };
  Curl bare = curl(ca() + url(agent));
  EXPECT_NE(bare.exit, 0) << "no client certificate: " << bare.code;
  EXPECT_NE(bare.code, "200");
  EXPECT_NE(with("stranger").exit, 0) << "a certificate no configured CA signed";
  EXPECT_EQ(with("client").code, "200");
  EXPECT_EQ(with("nosan").code, "200");

  // client_allowed_sans narrows it to certificates that name an allowed SAN.
  write(pki_->path("mtls.yml"),
        tls_section("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca1.crt\n"
                    "  client_allowed_sans: [prometheus.lab]\n"));
  kill(agent.pid(), SIGHUP);
  ASSERT_TRUE(wait_for([&] { return agent.stderr_text().find("SIGHUP: reloaded") != std::string::npos; }))
      << agent.stderr_text();
  EXPECT_EQ(with("client").code, "200");
  EXPECT_NE(with("nosan").exit, 0) << "signed by the CA, but without an allowed SAN";
  auto s = samples(with("client").body);
  EXPECT_GE(s["noisewatch_agent_tls_handshake_failures_total"], 3);
  EXPECT_EQ(agent.terminate(), 0);
}

TEST_F(AgentTlsE2E, ReachableBeyondLoopbackWithoutAWebConfigWarns) {
  Agent agent({}, "0.0.0.0:0");
  ASSERT_NE(agent.port(), 0) << agent.stderr_text();
  std::string err = agent.stderr_text();
  EXPECT_NE(err.find("warning:"), std::string::npos) << err;
  EXPECT_NE(err.find("--web-config FILE"), std::string::npos) << err;
  EXPECT_EQ(agent.terminate(), 0);
}

TEST(AgentWebConfig, AnUnusableFileExits125WithOneLineNamingTheField) {
  std::string dir = temp_path("webcfg");
  std::filesystem::create_directories(dir);
  struct Case {
    std::string text, says;
  } cases[] = {
      {"tls_server_config:\n  cert_file: a.crt\n", "tls_server_config.key_file: missing"},
      {"tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n", "tls_server_config.cert_file: cannot read"},
      {"basic_auth_users:\n  alice: hunter2\n", "basic_auth_users.alice: not a bcrypt hash"},
      {"tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_auth: RequireAndVerifyClientCert\n",
       "tls_server_config.client_auth: unknown field"},
  };
  for (const auto& c : cases) {
    write(dir + "/web.yml", c.text);
    Proc p = run({noisewatch(), "agent", "--listen", "127.0.0.1:0", "--web-config", dir + "/web.yml"});
    EXPECT_EQ(p.status, 125) << c.text << p.err;
    EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
    EXPECT_NE(p.err.find(c.says), std::string::npos) << p.err;
  }
  Proc missing = run({noisewatch(), "agent", "--web-config", dir + "/none.yml"});
  EXPECT_EQ(missing.status, 125);
  EXPECT_NE(missing.err.find("cannot read it: No such file or directory"), std::string::npos) << missing.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nw::e2e
