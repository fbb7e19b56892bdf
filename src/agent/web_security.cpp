// SPDX-License-Identifier: Apache-2.0
#include <utility>  // before Boost 1.74's asio headers, which use std::exchange without it

#include "agent/web_security.h"

#include <boost/asio/ssl/context.hpp>

#include "agent/tls_context.h"

namespace nw::agent {

std::shared_ptr<const WebSecurity> load_web_security(const std::string& path) {
  WebConfig c = read_web_config(path);
  auto s = std::make_shared<WebSecurity>();
  s->path = path;
  if (c.tls) s->tls = make_tls_context(*c.tls, path);
  s->auth = std::make_shared<BasicAuth>(std::move(c.users));
  s->headers = std::move(c.headers);
  s->rate_limit = c.rate_limit;
  return s;
}

}  // namespace nw::agent
