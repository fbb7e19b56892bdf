// SPDX-License-Identifier: Apache-2.0
// The TLS side of a web config: an OpenSSL server context (through Boost.Asio's ssl::context)
// with the certificate, key, client verification, versions, ciphers and curves it asks for.
#pragma once
#include <memory>

#include "agent/web_config.h"

namespace boost::asio::ssl {
class context;
}

namespace nw::agent {

// Loads and checks everything the section names (files read now, key matched to the
// certificate). Throws nw::Error naming the file and the field: "--web-config F:
// tls_server_config.cert_file: cannot read /etc/nw/cert.pem: No such file or directory".
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const TlsServerConfig& c, const std::string& config_path);

}  // namespace nw::agent
