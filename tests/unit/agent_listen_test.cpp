// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "agent/listen_address.h"
#include "common/errors.h"

namespace nw::agent {
namespace {

TEST(AgentListen, ParsesIpv4AndBracketedIpv6) {
  auto a = parse_listen_address("127.0.0.1:9477");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9477);
  auto b = parse_listen_address("[::1]:0");
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 0);
  EXPECT_EQ(format_listen_address(b), "[::1]:0");
  EXPECT_EQ(format_listen_address(a), "127.0.0.1:9477");
}

TEST(AgentListen, RefusesWhatIsNotAnAddressAndPort) {
  for (const char* bad : {"9477", "localhost:9477", ":9477", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:9x",
                          "::1:9477", "[::1]", "300.0.0.1:1", ""})
    EXPECT_THROW(parse_listen_address(bad), Error) << bad;
}

}  // namespace
}  // namespace nw::agent
