// SPDX-License-Identifier: Apache-2.0
// A web config made ready to serve with: the TLS context, the credentials, the extra headers and
// the rate limit. The HTTP server holds one and swaps it whole when the file is reloaded, so a
// connection sees one configuration or the next, never half of each.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/basic_auth.h"
#include "agent/web_config.h"

namespace boost::asio::ssl {
class context;
}

namespace nw::agent {

struct WebSecurity {
  std::string path;                                // the web config file
  std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain HTTP
  std::shared_ptr<BasicAuth> auth;                 // null or open(): anyone may ask
  std::vector<std::pair<std::string, std::string>> headers;
  RateLimit rate_limit;

  bool authenticates() const { return auth && !auth->open(); }
};

// Reads the file and loads what it names (certificates, keys, CAs). Throws nw::Error with one
// line naming the field.
std::shared_ptr<const WebSecurity> load_web_security(const std::string& path);

}  // namespace nw::agent
