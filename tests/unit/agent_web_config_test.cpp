// SPDX-License-Identifier: Apache-2.0
// The agent's --web-config: the exporter-toolkit format read strictly (every refusal names its
// field in one line), paths relative to the file, and the TLS context loaded from it.
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include <gtest/gtest.h>

#include <boost/asio/ssl/context.hpp>

#include "agent/tls_context.h"
#include "agent/web_config.h"
#include "common/errors.h"

namespace nw::agent {
namespace {

const std::string kDir = std::string(NW_SOURCE_DIR) + "/tests/data/agent/tls";
const std::string kHash = "$2y$04$zWK0tQWK9gXPzQDt7PzOt.vwOZl1B71w6kOWmTDQEUfc9lXdJhiam";

WebConfig parse(const std::string& text) { return parse_web_config(text, "/etc/nw/web.yml", kDir); }

// The one-line message a file gets, "" when it is accepted.
std::string refusal(const std::string& text) {
  try {
    parse(text);
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("--web-config /etc/nw/web.yml: ", 0), 0u) << m;
    return m;
  }
  return "";
}

TEST(WebConfig, AnEmptyFileServesPlainHttpToEveryone) {
  WebConfig c = parse("");
  EXPECT_FALSE(c.tls);
  EXPECT_TRUE(c.users.empty());
  EXPECT_FALSE(parse("tls_server_config:\n").tls);
  EXPECT_FALSE(parse("tls_server_config: {min_version: TLS13}\n").tls)
      << "no certificate, no client auth: plain, as the toolkit";
}

TEST(WebConfig, ReadsTheToolkitFields) {
  WebConfig c = parse(
      "tls_server_config:\n"
      "  cert_file: server.crt\n"
      "  key_file: /abs/server.key\n"
      "  client_auth_type: RequireAndVerifyClientCert\n"
      "  client_ca_file: ca.crt\n"
      "  min_version: TLS13\n"
      "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
      "  curve_preferences: [X25519, CurveP256]\n"
      "  prefer_server_cipher_suites: false\n"
      "  client_allowed_sans: [prometheus.lab]\n"
      "http_server_config:\n"
      "  http2: false\n"
      "  headers:\n"
      "    X-Frame-Options: deny\n"
      "    Strict-Transport-Security: max-age=31536000\n"
      "basic_auth_users:\n"
      "  alice: " +
      kHash +
      "\n"
      "rate_limit:\n"
      "  interval: 100ms\n"
      "  burst: 5\n");
  ASSERT_TRUE(c.tls);
  EXPECT_EQ(c.tls->cert_file, kDir + "/server.crt") << "relative to the file's directory";
  EXPECT_EQ(c.tls->key_file, "/abs/server.key");
  EXPECT_EQ(c.tls->client_ca_file, kDir + "/ca.crt");
  EXPECT_EQ(c.tls->client_auth, ClientAuth::require_and_verify);
  EXPECT_EQ(c.tls->min_version, TlsVersion::tls13);
  EXPECT_EQ(c.tls->max_version, TlsVersion::tls13);
  EXPECT_EQ(c.tls->cipher_suites.size(), 1u);
  EXPECT_EQ(c.tls->curve_preferences, (std::vector<std::string>{"X25519", "CurveP256"}));
  EXPECT_FALSE(c.tls->prefer_server_cipher_suites);
  EXPECT_EQ(c.tls->client_allowed_sans, std::vector<std::string>{"prometheus.lab"});
  EXPECT_EQ(c.headers.size(), 2u);
  EXPECT_EQ(c.users.at("alice"), kHash);
  EXPECT_EQ(c.rate_limit.interval, std::chrono::milliseconds(100));
  EXPECT_EQ(c.rate_limit.burst, 5);
}

TEST(WebConfig, DefaultsAreTheToolkits) {
  WebConfig c = parse("tls_server_config: {cert_file: a, key_file: b}\n");
  ASSERT_TRUE(c.tls);
  EXPECT_EQ(c.tls->min_version, TlsVersion::tls12);
  EXPECT_EQ(c.tls->max_version, TlsVersion::tls13);
  EXPECT_EQ(c.tls->client_auth, ClientAuth::none);
  EXPECT_TRUE(c.tls->prefer_server_cipher_suites);
  EXPECT_EQ(
      parse("tls_server_config: {cert_file: a, key_file: b, client_auth_type: RequireClientCert}\n").tls->client_auth,
      ClientAuth::require_any)
      << "the toolkit's older name";
}

TEST(WebConfig, EveryRefusalNamesItsField) {
  struct Case {
    std::string text, field;
  } cases[] = {
      {"tls_server_config: {cert_file: a}\n", "tls_server_config.key_file: missing"},
      {"tls_server_config: {key_file: a}\n", "tls_server_config.cert_file: missing"},
      {"tls_server_config: {cert_file: a, key_file: b, cert_fil: c}\n", "tls_server_config.cert_fil: unknown field"},
      {"tls_config: {}\n", "tls_config: unknown field"},
      {"basic_auth_users: {alice: secret}\n", "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_users: {alice: '$2y$10$short'}\n", "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_users: [alice]\n", "basic_auth_users: must be a mapping"},
      {"tls_server_config: {cert_file: a, key_file: b, min_version: TLS14}\n",
       "tls_server_config.min_version: unknown TLS version"},
      {"tls_server_config: {cert_file: a, key_file: b, min_version: TLS13, max_version: TLS12}\n",
       "tls_server_config.max_version: is below min_version"},
      {"tls_server_config: {cert_file: a, key_file: b, client_auth_type: Always}\n",
       "tls_server_config.client_auth_type: unknown policy"},
      {"tls_server_config: {cert_file: a, key_file: b, client_ca_file: c}\n",
       "tls_server_config.client_ca_file: client CAs are given without"},
      {"tls_server_config: {cert_file: a, key_file: b, client_auth_type: RequireAndVerifyClientCert}\n",
       "tls_server_config.client_ca_file: missing"},
      {"tls_server_config: {cert_file: a, key_file: b, client_auth_type: VerifyClientCertIfGiven, client_ca_file: c, "
       "client_allowed_sans: [x]}\n",
       "tls_server_config.client_allowed_sans: needs client_auth_type"},
      {"tls_server_config: {cert_file: a, cert: b, key_file: c}\n", "tls_server_config.cert: give cert_file or cert"},
      {"tls_server_config: {cert_file: a, key_file: b, curve_preferences: [P256]}\n",
       "tls_server_config.curve_preferences: unknown curve"},
      {"tls_server_config: {cert_file: [a], key_file: b}\n", "tls_server_config.cert_file: must be a string"},
      {"tls_server_config: {cert_file: a, key_file: b, prefer_server_cipher_suites: maybe}\n",
       "tls_server_config.prefer_server_cipher_suites: must be true or false"},
      {"http_server_config: {headers: {Server: x}}\n", "http_server_config.headers.Server: this header cannot be set"},
      {"http_server_config: {headers: {X-Frame-Options: allow}}\n",
       "http_server_config.headers.X-Frame-Options: 'allow' is not one of"},
      {"http_server_config: {http3: true}\n", "http_server_config.http3: unknown field"},
      {"rate_limit: {interval: 1x, burst: 1}\n", "rate_limit.interval: '1x' is not a duration"},
      {"rate_limit: {interval: 1s}\n", "rate_limit.burst: must be at least 1"},
      {"tls_server_config: [\n", "not YAML: line"},
      {"? [a, b]\n: c\n", "line 1"},
      {"- a\n- b\n", "must be a mapping of fields"},
  };
  for (const auto& c : cases) {
    std::string m = refusal(c.text);
    EXPECT_NE(m.find(c.field), std::string::npos) << c.text << " -> " << m;
  }
}

TEST(WebConfig, ReadsGoDurations) {
  EXPECT_EQ(parse_go_duration("100ms"), std::chrono::milliseconds(100));
  EXPECT_EQ(parse_go_duration("1m30s"), std::chrono::seconds(90));
  EXPECT_EQ(parse_go_duration("1.5h"), std::chrono::minutes(90));
  EXPECT_EQ(parse_go_duration("250us"), std::chrono::microseconds(250));
  EXPECT_EQ(parse_go_duration("0"), std::chrono::nanoseconds(0));
  EXPECT_FALSE(parse_go_duration("10"));
  EXPECT_FALSE(parse_go_duration("s"));
  EXPECT_FALSE(parse_go_duration(""));
  EXPECT_FALSE(parse_go_duration("1d"));
}

TEST(WebConfig, ADirectoryIsNotAFile) { EXPECT_THROW(read_web_config(std::string(NW_SOURCE_DIR) + "/tests"), Error); }

TEST(WebConfig, AMissingFileIsOneLine) {
  try {
    read_web_config("/nonexistent/web.yml");
    FAIL() << "accepted a missing file";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--web-config /nonexistent/web.yml: cannot read it: No such file or directory");
  }
}

// ---- the TLS context made from it ----

std::string tls_refusal(const std::string& text) {
  WebConfig c = parse(text);
  if (!c.tls) return "no tls section";
  try {
    make_tls_context(*c.tls, c.path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TlsContext, LoadsTheCertificateKeyAndClientCa) {
  EXPECT_EQ(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: server.key}\n"), "");
  EXPECT_EQ(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: server.key, client_auth_type: "
                        "RequireAndVerifyClientCert, client_ca_file: ca.crt, client_allowed_sans: [prometheus]}\n"),
            "");
  EXPECT_EQ(
      tls_refusal(
          "tls_server_config: {cert_file: server.crt, key_file: server.key, min_version: TLS12, cipher_suites: "
          "[TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256], curve_preferences: [X25519, CurveP384]}\n"),
      "")
      << "IANA names, as Go spells them; TLS 1.3 suites accepted and not configurable, as in Go";
}

TEST(TlsContext, RefusalsNameTheFieldAndTheReason) {
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: nope.crt, key_file: server.key}\n")
                .find("tls_server_config.cert_file: cannot read " + kDir + "/nope.crt: No such file or directory"),
            std::string::npos);
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: other.key}\n")
                .find("tls_server_config.key_file: is not the private key of the certificate in cert_file"),
            std::string::npos);
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: README.md, key_file: server.key}\n")
                .find("tls_server_config.cert_file: not a PEM certificate"),
            std::string::npos);
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: ca.crt}\n")
                .find("tls_server_config.key_file: not a PEM private key"),
            std::string::npos);
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: server.key, client_auth_type: "
                        "RequireAndVerifyClientCert, client_ca_file: README.md}\n")
                .find("tls_server_config.client_ca_file: not PEM certificates"),
            std::string::npos);
  EXPECT_NE(tls_refusal("tls_server_config: {cert_file: server.crt, key_file: server.key, cipher_suites: [TLS_FAST]}\n")
                .find("tls_server_config.cipher_suites: unknown or disabled cipher suite 'TLS_FAST'"),
            std::string::npos);
}

}  // namespace
}  // namespace nw::agent
