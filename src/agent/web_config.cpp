// SPDX-License-Identifier: Apache-2.0
#include "agent/web_config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/errors.h"
#include "common/files.h"

namespace nw::agent {

namespace {

// Reads the file strictly, like the toolkit, which refuses what it does not know rather than
// ignoring a typo.
class Reader {
 public:
  Reader(std::string path, std::string dir) : path_(std::move(path)), dir_(std::move(dir)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    refuse_web_config(path_, field, why);
  }

  // A mapping's keys, each checked against the names it may have.
  void only(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> known) const {
    if (map.IsNull()) return;
    if (!map.IsMap()) fail(where.empty() ? "the document" : where, "must be a mapping of fields");
    for (const auto& kv : map) {
      std::string k = kv.first.as<std::string>();
      bool ok = false;
      for (const char* n : known) ok = ok || k == n;
      if (!ok) fail(join(where, k), fmt::format("unknown field (known here: {})", fmt::join(known, ", ")));
    }
  }

  std::string text(const YAML::Node& map, const std::string& where, const char* name) const {
    const YAML::Node n = map[name];
    if (!n || n.IsNull()) return "";
    if (!n.IsScalar()) fail(join(where, name), "must be a string");
    return n.as<std::string>();
  }

  std::string file(const YAML::Node& map, const std::string& where, const char* name) const {
    std::string p = text(map, where, name);
    if (p.empty() || p.front() == '/') return p;
    return (std::filesystem::path(dir_) / p).lexically_normal().string();
  }

  std::vector<std::string> list(const YAML::Node& map, const std::string& where, const char* name) const {
    std::vector<std::string> out;
    const YAML::Node n = map[name];
    if (!n || n.IsNull()) return out;
    if (!n.IsSequence()) fail(join(where, name), "must be a list");
    for (const auto& e : n) {
      if (!e.IsScalar()) fail(join(where, name), "must be a list of strings");
      out.push_back(e.as<std::string>());
    }
    return out;
  }

  std::optional<bool> flag(const YAML::Node& map, const std::string& where, const char* name) const {
    const YAML::Node n = map[name];
    if (!n || n.IsNull()) return std::nullopt;
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) fail(join(where, name), "must be true or false");
    return v;
  }

  static std::string join(const std::string& where, const std::string& name) {
    return where.empty() ? name : where + "." + name;
  }

 private:
  std::string path_, dir_;
};

TlsVersion tls_version(const Reader& r, const std::string& field, const std::string& v) {
  static const std::map<std::string, TlsVersion> names = {{"TLS10", TlsVersion::tls10},
                                                          {"TLS11", TlsVersion::tls11},
                                                          {"TLS12", TlsVersion::tls12},
                                                          {"TLS13", TlsVersion::tls13}};
  auto it = names.find(v);
  if (it == names.end()) r.fail(field, fmt::format("unknown TLS version '{}' (TLS10, TLS11, TLS12 or TLS13)", v));
  return it->second;
}

ClientAuth client_auth(const Reader& r, const std::string& v) {
  static const std::map<std::string, ClientAuth> names = {
      {"", ClientAuth::none},
      {"NoClientCert", ClientAuth::none},
      {"RequestClientCert", ClientAuth::request},
      {"RequireAnyClientCert", ClientAuth::require_any},
      {"RequireClientCert", ClientAuth::require_any},  // the toolkit's older name
      {"VerifyClientCertIfGiven", ClientAuth::verify_if_given},
      {"RequireAndVerifyClientCert", ClientAuth::require_and_verify}};
  auto it = names.find(v);
  if (it == names.end())
    r.fail("tls_server_config.client_auth_type",
           fmt::format("unknown policy '{}' (NoClientCert, RequestClientCert, RequireAnyClientCert, "
                       "VerifyClientCertIfGiven or RequireAndVerifyClientCert)",
                       v));
  return it->second;
}

std::optional<TlsServerConfig> tls_section(const Reader& r, const YAML::Node& n) {
  const std::string w = "tls_server_config";
  if (!n || n.IsNull()) return std::nullopt;
  r.only(n, w,
         {"cert_file", "key_file", "cert", "key", "client_ca_file", "client_ca", "client_auth_type", "min_version",
          "max_version", "cipher_suites", "curve_preferences", "prefer_server_cipher_suites", "client_allowed_sans"});
  TlsServerConfig t;
  t.cert_file = r.file(n, w, "cert_file");
  t.key_file = r.file(n, w, "key_file");
  t.client_ca_file = r.file(n, w, "client_ca_file");
  t.cert = r.text(n, w, "cert");
  t.key = r.text(n, w, "key");
  t.client_ca = r.text(n, w, "client_ca");
  std::string auth = r.text(n, w, "client_auth_type");
  // As the toolkit: a section that sets none of these serves plain HTTP.
  if (t.cert_file.empty() && t.cert.empty() && t.key_file.empty() && t.key.empty() && t.client_ca_file.empty() &&
      t.client_ca.empty() && auth.empty())
    return std::nullopt;
  if (t.cert_file.empty() && t.cert.empty())
    r.fail(w + ".cert_file", "missing (give cert_file or cert: the server's certificate in PEM)");
  if (t.key_file.empty() && t.key.empty())
    r.fail(w + ".key_file", "missing (give key_file or key: the server's private key in PEM)");
  if (!t.cert_file.empty() && !t.cert.empty()) r.fail(w + ".cert", "give cert_file or cert, not both");
  if (!t.key_file.empty() && !t.key.empty()) r.fail(w + ".key", "give key_file or key, not both");
  if (!t.client_ca_file.empty() && !t.client_ca.empty())
    r.fail(w + ".client_ca", "give client_ca_file or client_ca, not both");
  t.client_auth = client_auth(r, auth);
  if ((!t.client_ca_file.empty() || !t.client_ca.empty()) && t.client_auth == ClientAuth::none)
    r.fail(w + ".client_ca_file", "client CAs are given without a client_auth_type (e.g. RequireAndVerifyClientCert)");
  if ((t.client_auth == ClientAuth::verify_if_given || t.client_auth == ClientAuth::require_and_verify) &&
      t.client_ca_file.empty() && t.client_ca.empty())
    r.fail(w + ".client_ca_file", "missing: client_auth_type " + auth + " verifies client certificates against it");
  if (std::string v = r.text(n, w, "min_version"); !v.empty()) t.min_version = tls_version(r, w + ".min_version", v);
  if (std::string v = r.text(n, w, "max_version"); !v.empty()) t.max_version = tls_version(r, w + ".max_version", v);
  if (t.max_version < t.min_version) r.fail(w + ".max_version", "is below min_version");
  t.cipher_suites = r.list(n, w, "cipher_suites");
  t.curve_preferences = r.list(n, w, "curve_preferences");
  static const std::set<std::string> curves = {"CurveP256", "CurveP384", "CurveP521", "X25519"};
  for (const auto& c : t.curve_preferences)
    if (!curves.count(c))
      r.fail(w + ".curve_preferences",
             fmt::format("unknown curve '{}' (CurveP256, CurveP384, CurveP521 or X25519)", c));
  if (auto f = r.flag(n, w, "prefer_server_cipher_suites")) t.prefer_server_cipher_suites = *f;
  t.client_allowed_sans = r.list(n, w, "client_allowed_sans");
  if (!t.client_allowed_sans.empty() && t.client_auth != ClientAuth::require_any &&
      t.client_auth != ClientAuth::require_and_verify)
    r.fail(w + ".client_allowed_sans", "needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert");
  return t;
}

// The response headers the toolkit lets a file set, with the values it allows (none listed: any).
const std::map<std::string, std::vector<std::string>>& settable_headers() {
  static const std::map<std::string, std::vector<std::string>> h = {{"Strict-Transport-Security", {}},
                                                                    {"X-Content-Type-Options", {"nosniff"}},
                                                                    {"X-Frame-Options", {"deny", "sameorigin"}},
                                                                    {"X-XSS-Protection", {}},
                                                                    {"Content-Security-Policy", {}}};
  return h;
}

void http_section(const Reader& r, const YAML::Node& n, WebConfig& c) {
  const std::string w = "http_server_config";
  if (!n || n.IsNull()) return;
  r.only(n, w, {"http2", "headers"});
  r.flag(n, w, "http2");  // accepted and moot: the agent speaks HTTP/1.1, as Prometheus scrapes
  const YAML::Node h = n["headers"];
  if (!h || h.IsNull()) return;
  if (!h.IsMap()) r.fail(w + ".headers", "must be a mapping of header names to values");
  for (const auto& kv : h) {
    std::string name = kv.first.as<std::string>(), field = w + ".headers." + name;
    if (!kv.second.IsScalar()) r.fail(field, "must be a string");
    std::string value = kv.second.as<std::string>();
    auto it = settable_headers().find(name);
    if (it == settable_headers().end()) {
      std::vector<std::string> names;
      for (const auto& [k, _] : settable_headers()) names.push_back(k);
      r.fail(field, fmt::format("this header cannot be set (settable: {})", fmt::join(names, ", ")));
    }
    if (!it->second.empty() && std::find(it->second.begin(), it->second.end(), value) == it->second.end())
      r.fail(field, fmt::format("'{}' is not one of: {}", value, fmt::join(it->second, ", ")));
    if (value.find_first_of("\r\n") != std::string::npos) r.fail(field, "a header value is one line");
    c.headers.emplace_back(name, value);
  }
}

void users_section(const Reader& r, const YAML::Node& n, WebConfig& c) {
  const std::string w = "basic_auth_users";
  if (!n || n.IsNull()) return;
  if (!n.IsMap()) r.fail(w, "must be a mapping of user names to bcrypt hashes");
  // What htpasswd -B, Python's bcrypt and Go's x/crypto/bcrypt write: $2a$, $2b$ or $2y$, a cost,
  // 53 characters of salt and hash.
  static const std::regex bcrypt(R"(^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$)");
  for (const auto& kv : n) {
    std::string user = kv.first.as<std::string>(), field = w + "." + user;
    if (user.empty() || user.find(':') != std::string::npos) r.fail(field, "a user name is not empty and has no ':'");
    if (!kv.second.IsScalar()) r.fail(field, "must be a bcrypt hash");
    std::string hash = kv.second.as<std::string>();
    if (!std::regex_match(hash, bcrypt))
      r.fail(field, "not a bcrypt hash: store a hash, never the password (htpasswd -nBC 10 \"\" | tr -d ':\\n')");
    c.users[user] = hash;
  }
}

void rate_section(const Reader& r, const YAML::Node& n, WebConfig& c) {
  const std::string w = "rate_limit";
  if (!n || n.IsNull()) return;
  r.only(n, w, {"burst", "interval"});
  if (std::string v = r.text(n, w, "interval"); !v.empty()) {
    auto d = parse_go_duration(v);
    if (!d || d->count() < 0) r.fail(w + ".interval", fmt::format("'{}' is not a duration such as 100ms, 1s or 1m", v));
    c.rate_limit.interval = *d;
  }
  if (const YAML::Node b = n["burst"]; b && !b.IsNull()) {
    int v = 0;
    if (!b.IsScalar() || !YAML::convert<int>::decode(b, v) || v < 0)
      r.fail(w + ".burst", "must be a whole number of requests");
    c.rate_limit.burst = v;
  }
  if (c.rate_limit.interval.count() > 0 && c.rate_limit.burst < 1)
    r.fail(w + ".burst", "must be at least 1 with an interval (the toolkit's limiter would refuse every request)");
}

}  // namespace

void refuse_web_config(const std::string& path, const std::string& field, const std::string& why) {
  throw Error(fmt::format("--web-config {}: {}: {}", path, field, why));
}

std::optional<std::chrono::nanoseconds> parse_go_duration(const std::string& text) {
  static const std::map<std::string, double> units = {{"ns", 1},   {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3},
                                                      {"ms", 1e6}, {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}};
  std::string s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.erase(0, 1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    double value = 0;
    try {
      value = std::stod(s.substr(start, i - start));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    size_t u = i;
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') ++i;
    auto it = units.find(s.substr(u, i - u));
    if (it == units.end()) return std::nullopt;
    total += value * it->second;
  }
  return std::chrono::nanoseconds(int64_t(negative ? -total : total));
}

WebConfig parse_web_config(const std::string& text, const std::string& path, const std::string& dir) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("--web-config {}: not YAML: line {}: {}", path, e.mark.line + 1, e.msg));
  }
  Reader r(path, dir);
  WebConfig c;
  c.path = path;
  if (!root || root.IsNull()) return c;  // an empty file: plain HTTP, no authentication
  try {
    r.only(root, "", {"tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"});
    c.tls = tls_section(r, root["tls_server_config"]);
    http_section(r, root["http_server_config"], c);
    users_section(r, root["basic_auth_users"], c);
    rate_section(r, root["rate_limit"], c);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("--web-config {}: line {}: {}", path, e.mark.line + 1, e.msg));
  }
  return c;
}

WebConfig read_web_config(const std::string& path) {
  auto text = try_read_file(path);
  if (!text) throw Error(fmt::format("--web-config {}: cannot read it: {}", path, std::strerror(errno)));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(fmt::format("--web-config {}: not a file", path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_web_config(*text, path, dir.empty() ? "." : dir);
}

}  // namespace nw::agent
