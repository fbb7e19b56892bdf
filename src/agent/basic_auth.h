// SPDX-License-Identifier: Apache-2.0
// HTTP basic authentication against the bcrypt hashes of a web config (basic_auth_users).
// bcrypt is slow on purpose (~50-100 ms at cost 10), and Prometheus sends the same credentials
// every scrape: verdicts are remembered by a SHA-256 digest of user, hash and password (never the
// password itself), as the toolkit remembers them, so a scrape costs one digest.
#pragma once
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace nw::agent {

// The user and password of an "Authorization: Basic <base64>" value; nullopt when it is absent,
// of another scheme, or not base64 of "user:password".
std::optional<std::pair<std::string, std::string>> parse_basic_credentials(std::string_view authorization);

// Does `password` hash to `hash` ($2a$/$2b$/$2y$ bcrypt, through the system's crypt: libxcrypt)?
// The two hashes are compared in constant time.
bool bcrypt_matches(const std::string& hash, const std::string& password);

class BasicAuth {
 public:
  explicit BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {}

  // No users: everyone is let in.
  bool open() const { return users_.empty(); }

  // The remembered verdict for this Authorization value; nullopt when bcrypt must decide.
  std::optional<bool> remembered(std::string_view authorization) const;
  // Decides (bcrypt, slow) and remembers. An unknown user costs the same bcrypt as a known one,
  // so response times do not tell which user names exist. Safe from any thread.
  bool verify(std::string_view authorization);
  bool allows(std::string_view authorization) {
    auto r = remembered(authorization);
    return r ? *r : verify(authorization);
  }

 private:
  using Credentials = std::pair<std::string, std::string>;  // user, password
  std::string key(const Credentials& cred) const;

  std::map<std::string, std::string> users_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, bool> verdicts_;  // digest -> verdict
  static constexpr size_t kMaxVerdicts = 1024;      // then forgotten all at once (a flood of guesses)
};

}  // namespace nw::agent
