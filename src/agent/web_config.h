// SPDX-License-Identifier: Apache-2.0
// The agent's --web-config FILE: TLS and basic auth in the format of Prometheus' exporter-toolkit
// (the file node_exporter and every exporter built on the toolkit read through
// --web.config.file), so operators reuse the files, certificates and scrape configs they have.
// Parsing only: the TLS context is made from it by tls_context.h, the credentials are checked by
// basic_auth.h.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nw::agent {

// client_auth_type, as Go's crypto/tls names its policies.
enum class ClientAuth { none, request, require_any, verify_if_given, require_and_verify };

// TLS protocol versions as the file spells them (TLS10 ... TLS13).
enum class TlsVersion { tls10, tls11, tls12, tls13 };

struct TlsServerConfig {
  // Files are absolute once parsed: a relative path is relative to the web config's directory.
  std::string cert_file, key_file, client_ca_file;
  std::string cert, key, client_ca;  // inline PEM, instead of the files
  ClientAuth client_auth = ClientAuth::none;
  TlsVersion min_version = TlsVersion::tls12, max_version = TlsVersion::tls13;
  std::vector<std::string> cipher_suites;      // IANA names (TLS 1.2 and below; Go's spelling)
  std::vector<std::string> curve_preferences;  // CurveP256, CurveP384, CurveP521, X25519
  bool prefer_server_cipher_suites = true;
  std::vector<std::string> client_allowed_sans;  // a client certificate must name one of them
};

struct RateLimit {
  std::chrono::nanoseconds interval{0};  // one request per interval on average; 0: no limit
  int burst = 0;
};

struct WebConfig {
  std::string path;                                          // the file it was read from
  std::optional<TlsServerConfig> tls;                        // nullopt: plain HTTP
  std::map<std::string, std::string> users;                  // basic_auth_users: name -> bcrypt hash; empty: no auth
  std::vector<std::pair<std::string, std::string>> headers;  // http_server_config.headers
  RateLimit rate_limit;
};

// The refusal of a web config, in one line naming the file and the field: every check of the
// file, here and in tls_context.cpp, says it this way.
[[noreturn]] void refuse_web_config(const std::string& path, const std::string& field, const std::string& why);

// Reads and checks the file. Throws nw::Error with one line naming the file and the field:
// "--web-config /etc/nw/web.yml: tls_server_config.key_file: missing".
WebConfig read_web_config(const std::string& path);

// The same from text; `dir` is where relative paths point (the file's directory).
WebConfig parse_web_config(const std::string& text, const std::string& path, const std::string& dir);

// "1m30s" -> 90 s: Go's time.ParseDuration, as the toolkit's rate_limit.interval is written.
std::optional<std::chrono::nanoseconds> parse_go_duration(const std::string& text);

}  // namespace nw::agent
