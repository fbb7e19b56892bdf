// SPDX-License-Identifier: Apache-2.0
// The --listen ADDR:PORT value of `noisewatch agent`.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace nw::agent {

struct ListenAddress {
  std::string host;   // a numeric IPv4 or IPv6 address, without brackets
  uint16_t port = 0;  // 0: the kernel picks a free port (the agent prints the one it got)
};

// "127.0.0.1:9477", "[::1]:9477", "0.0.0.0:9477". Names are refused on purpose: a service that
// binds where DNS says at boot is hard to reason about. Throws nw::Error saying what to give.
ListenAddress parse_listen_address(std::string_view text);

// Back to the ADDR:PORT form, with brackets around IPv6 addresses.
std::string format_listen_address(const ListenAddress& a);

}  // namespace nw::agent
