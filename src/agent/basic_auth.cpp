// SPDX-License-Identifier: Apache-2.0
#include "agent/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <strings.h>

#include <cstring>
#include <vector>

namespace nw::agent {

namespace {

// A bcrypt hash of a password nobody has, checked for unknown users (as the toolkit does).
constexpr const char* kDecoyHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";

std::string sha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::optional<std::string> base64_decode(std::string_view in) {
  if (in.empty() || in.size() % 4 != 0 || in.size() > 4096) return std::nullopt;
  std::vector<unsigned char> out(in.size() / 4 * 3 + 1);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(in.data()), int(in.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = in.back() == '=' ? (in[in.size() - 2] == '=' ? 2 : 1) : 0;
  return std::string(reinterpret_cast<const char*>(out.data()), size_t(n) - pad);
}

}  // namespace

std::optional<std::pair<std::string, std::string>> parse_basic_credentials(std::string_view v) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  if (v.size() < 6 || strncasecmp(v.data(), "Basic ", 6) != 0) return std::nullopt;
  v.remove_prefix(6);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  auto decoded = base64_decode(v);
  if (!decoded) return std::nullopt;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::pair{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

bool bcrypt_matches(const std::string& hash, const std::string& password) {
  crypt_data data;
  std::memset(&data, 0, sizeof data);
  const char* out = crypt_rn(password.c_str(), hash.c_str(), &data, sizeof data);
  if (!out || out[0] == '*') return false;  // libxcrypt's failure tokens start with '*'
  size_t n = std::strlen(out);
  return n == hash.size() && CRYPTO_memcmp(out, hash.data(), n) == 0;
}

std::string BasicAuth::key(const Credentials& cred) const {
  // The user's hash is part of the key, so that a reload with a new hash forgets nothing wrongly
  // (each BasicAuth also lives only as long as its configuration).
  auto it = users_.find(cred.first);
  std::string material = cred.first;
  material.push_back('\0');
  material += it == users_.end() ? "" : it->second;
  material.push_back('\0');
  material += cred.second;
  return sha256(material);
}

std::optional<bool> BasicAuth::remembered(std::string_view authorization) const {
  if (open()) return true;
  auto cred = parse_basic_credentials(authorization);
  if (!cred) return false;  // no credentials, or not basic ones: nothing to verify
  std::string k = key(*cred);
  std::lock_guard lock(mu_);
  auto it = verdicts_.find(k);
  if (it == verdicts_.end()) return std::nullopt;
  return it->second;
}

bool BasicAuth::verify(std::string_view authorization) {
  if (open()) return true;
  auto cred = parse_basic_credentials(authorization);
  if (!cred) return false;
  auto it = users_.find(cred->first);
  bool known = it != users_.end();
  bool ok = bcrypt_matches(known ? it->second : kDecoyHash, cred->second) && known;
  std::string k = key(*cred);
  std::lock_guard lock(mu_);
  if (verdicts_.size() >= kMaxVerdicts) verdicts_.clear();
  verdicts_[k] = ok;
  return ok;
}

}  // namespace nw::agent
