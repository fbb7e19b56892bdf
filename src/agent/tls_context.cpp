// SPDX-License-Identifier: Apache-2.0
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include "agent/tls_context.h"

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/verify_context.hpp>

#include "common/files.h"

namespace nw::agent {

namespace ssl = boost::asio::ssl;

namespace {

class Builder {
 public:
  Builder(const TlsServerConfig& c, std::string path) : c_(c), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    refuse_web_config(path_, "tls_server_config." + field, why);
  }

  // The PEM text of a file field (or of its inline twin), read now so that an unreadable file is
  // named with the reason.
  std::string pem(const char* field, const std::string& file, const std::string& inline_text) const {
    if (file.empty()) return inline_text;
    auto text = try_read_file(file);
    if (!text) fail(field, fmt::format("cannot read {}: {}", file, std::strerror(errno)));
    return *text;
  }

  static std::string openssl_reason(const boost::system::error_code& ec) {
    std::string m = ec.message();
    return m.empty() ? "not valid PEM" : m;
  }

  std::shared_ptr<ssl::context> build() const {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    SSL_CTX* h = ctx->native_handle();
    static const int versions[] = {TLS1_VERSION, TLS1_1_VERSION, TLS1_2_VERSION, TLS1_3_VERSION};
    SSL_CTX_set_min_proto_version(h, versions[int(c_.min_version)]);
    SSL_CTX_set_max_proto_version(h, versions[int(c_.max_version)]);
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression);
    if (c_.prefer_server_cipher_suites) SSL_CTX_set_options(h, SSL_OP_CIPHER_SERVER_PREFERENCE);

    const char* cert_field = c_.cert_file.empty() ? "cert" : "cert_file";
    const char* key_field = c_.key_file.empty() ? "key" : "key_file";
    std::string cert = pem(cert_field, c_.cert_file, c_.cert), key = pem(key_field, c_.key_file, c_.key);
    boost::system::error_code ec;
    ctx->use_certificate_chain(boost::asio::buffer(cert), ec);
    if (ec) fail(cert_field, "not a PEM certificate: " + openssl_reason(ec));
    ctx->use_private_key(boost::asio::buffer(key), ssl::context::pem, ec);
    // OpenSSL checks the key against the certificate as it loads it.
    if (ec && ec.message().find("mismatch") != std::string::npos)
      fail(key_field, fmt::format("is not the private key of the certificate in {}", cert_field));
    if (ec) fail(key_field, "not a PEM private key (or one with a passphrase): " + openssl_reason(ec));
    if (SSL_CTX_check_private_key(h) != 1)
      fail(key_field, fmt::format("is not the private key of the certificate in {}", cert_field));

    ciphers(h);
    curves(h);
    clients(*ctx);
    return ctx;
  }

 private:
  // Go's names (IANA's) to OpenSSL's. TLS 1.3 suites are accepted and, as in Go, not configurable.
  void ciphers(SSL_CTX* h) const {
    if (c_.cipher_suites.empty()) return;
    std::vector<std::string> names;
    STACK_OF(SSL_CIPHER)* all = SSL_CTX_get_ciphers(h);
    for (const auto& want : c_.cipher_suites) {
      if (want.rfind("TLS_AES_", 0) == 0 || want.rfind("TLS_CHACHA20_", 0) == 0) continue;
      const SSL_CIPHER* found = nullptr;
      for (int i = 0; all && i < sk_SSL_CIPHER_num(all) && !found; ++i) {
        const SSL_CIPHER* ci = sk_SSL_CIPHER_value(all, i);
        const char* std_name = SSL_CIPHER_standard_name(ci);
        if (std_name && want == std_name) found = ci;
      }
      if (!found)
        fail("cipher_suites", fmt::format("unknown or disabled cipher suite '{}' (give IANA names such as "
                                          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)",
                                          want));
      names.push_back(SSL_CIPHER_get_name(found));
    }
    if (!names.empty() && SSL_CTX_set_cipher_list(h, fmt::format("{}", fmt::join(names, ":")).c_str()) != 1)
      fail("cipher_suites", "OpenSSL refused the list");
  }

  void curves(SSL_CTX* h) const {
    if (c_.curve_preferences.empty()) return;
    std::vector<std::string> groups;
    for (const auto& c : c_.curve_preferences)
      groups.push_back(c == "CurveP256" ? "P-256" : c == "CurveP384" ? "P-384" : c == "CurveP521" ? "P-521" : "X25519");
    if (SSL_CTX_set1_groups_list(h, fmt::format("{}", fmt::join(groups, ":")).c_str()) != 1)
      fail("curve_preferences", "OpenSSL refused the list");
  }

  void clients(ssl::context& ctx) const {
    if (c_.client_auth == ClientAuth::none) return;
    SSL_CTX* h = ctx.native_handle();
    if (!c_.client_ca_file.empty() || !c_.client_ca.empty()) {
      const char* field = c_.client_ca_file.empty() ? "client_ca" : "client_ca_file";
      std::string cas = pem(field, c_.client_ca_file, c_.client_ca);
      boost::system::error_code ec;
      ctx.add_certificate_authority(boost::asio::buffer(cas), ec);
      if (ec) fail(field, "not PEM certificates: " + openssl_reason(ec));
      // The CA names sent with the certificate request, so that a client picks the right one.
      BIO* bio = BIO_new_mem_buf(cas.data(), int(cas.size()));
      STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
      while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(x)));
        X509_free(x);
      }
      BIO_free(bio);
      SSL_CTX_set_client_CA_list(h, names);
    }
    // Client certificates and session resumption need a session id context.
    static const unsigned char sid[] = "noisewatch-agent";
    SSL_CTX_set_session_id_context(h, sid, sizeof sid - 1);
    bool verify = c_.client_auth == ClientAuth::verify_if_given || c_.client_auth == ClientAuth::require_and_verify;
    bool require = c_.client_auth == ClientAuth::require_any || c_.client_auth == ClientAuth::require_and_verify;
    ctx.set_verify_mode(ssl::verify_peer | (require ? ssl::verify_fail_if_no_peer_cert : 0));
    auto sans = c_.client_allowed_sans;
    ctx.set_verify_callback([verify, sans](bool preverified, ssl::verify_context& vc) {
      X509_STORE_CTX* sc = vc.native_handle();
      bool ok = verify ? preverified : true;  // Request/RequireAny: any certificate, unverified
      if (ok && !sans.empty() && X509_STORE_CTX_get_error_depth(sc) == 0)
        ok = names_one_of(X509_STORE_CTX_get_current_cert(sc), sans);
      return ok;
    });
  }

  // Does the certificate carry one of these subject alternative names (DNS, e-mail, IP, URI),
  // compared as the toolkit compares them (exact strings)?
  static bool names_one_of(X509* cert, const std::vector<std::string>& allowed) {
    if (!cert) return false;
    auto* gens = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    if (!gens) return false;
    bool found = false;
    for (int i = 0; i < sk_GENERAL_NAME_num(gens) && !found; ++i) {
      const GENERAL_NAME* g = sk_GENERAL_NAME_value(gens, i);
      std::string v;
      if (g->type == GEN_DNS || g->type == GEN_EMAIL || g->type == GEN_URI) {
        const ASN1_IA5STRING* s = g->d.ia5;
        v.assign(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), size_t(ASN1_STRING_length(s)));
      } else if (g->type == GEN_IPADD) {
        const ASN1_OCTET_STRING* ip = g->d.ip;
        char buf[INET6_ADDRSTRLEN] = {};
        int len = ASN1_STRING_length(ip);
        if (len == 4 || len == 16) inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(ip), buf, sizeof buf);
        v = buf;
      }
      found = !v.empty() && std::find(allowed.begin(), allowed.end(), v) != allowed.end();
    }
    GENERAL_NAMES_free(gens);
    return found;
  }

  const TlsServerConfig& c_;
  std::string path_;
};

}  // namespace

std::shared_ptr<ssl::context> make_tls_context(const TlsServerConfig& c, const std::string& config_path) {
  return Builder(c, config_path).build();
}

}  // namespace nw::agent
