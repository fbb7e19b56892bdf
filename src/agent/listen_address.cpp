// SPDX-License-Identifier: Apache-2.0
#include "agent/listen_address.h"

#include <utility>  // Boost 1.74's asio headers use std::exchange without including it

#include <fmt/format.h>
#include <boost/asio/ip/address.hpp>
#include <charconv>

#include "common/errors.h"

namespace nw::agent {

namespace {

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw Error(fmt::format("--listen {}: {}; give ADDR:PORT, e.g. 127.0.0.1:9477 or [::1]:9477", text, why));
}

}  // namespace

ListenAddress parse_listen_address(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) bad(text, "no port");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    bad(text, "an IPv6 address needs brackets");
  }
  if (host.empty()) bad(text, "no address (use 0.0.0.0 to listen on every interface)");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
    bad(text, "the port must be a number from 0 to 65535");
  boost::system::error_code aec;
  boost::asio::ip::make_address(std::string(host), aec);
  if (aec) bad(text, fmt::format("'{}' is not a numeric IP address", host));
  return {std::string(host), uint16_t(value)};
}

std::string format_listen_address(const ListenAddress& a) {
  if (a.host.find(':') != std::string::npos) return fmt::format("[{}]:{}", a.host, a.port);
  return fmt::format("{}:{}", a.host, a.port);
}

}  // namespace nw::agent
