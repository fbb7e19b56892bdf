// SPDX-License-Identifier: Apache-2.0
// Basic auth against bcrypt hashes: the header's parsing, the hash check through libxcrypt, and
// the remembered verdicts that spare a scrape its bcrypt.
#include <gtest/gtest.h>

#include "agent/basic_auth.h"

namespace nw::agent {
namespace {

// htpasswd -nbBC 4 alice "correct horse"; htpasswd -nbBC 4 bob "s3cret:with colon" (apache2-utils).
const std::string kAlice = "$2y$04$zWK0tQWK9gXPzQDt7PzOt.vwOZl1B71w6kOWmTDQEUfc9lXdJhiam";
const std::string kBob = "$2y$04$oxgN5ff0hKHxjQmXFesKt.45IuGBP4LzWGsieihKy1hF1YXdi/qou";

// "Basic " + base64("user:password")
const std::string kAliceRight = "Basic YWxpY2U6Y29ycmVjdCBob3JzZQ==";  // alice:correct horse
const std::string kAliceWrong = "Basic YWxpY2U6Y29ycmVjdCBob3JzRQ==";  // alice:correct horsE
const std::string kBobRight = "Basic Ym9iOnMzY3JldDp3aXRoIGNvbG9u";    // bob:s3cret:with colon
const std::string kCarol = "Basic Y2Fyb2w6Y29ycmVjdCBob3JzZQ==";       // carol:correct horse

TEST(BasicAuth, ParsesTheHeader) {
  auto c = parse_basic_credentials(kAliceRight);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->first, "alice");
  EXPECT_EQ(c->second, "correct horse");
  auto b = parse_basic_credentials(kBobRight);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->second, "s3cret:with colon") << "the password may hold colons; the user may not";
  EXPECT_TRUE(parse_basic_credentials("basic YWxpY2U6Y29ycmVjdCBob3JzZQ==")) << "the scheme is case-insensitive";
  EXPECT_TRUE(parse_basic_credentials("Basic YTo="));  // a:
  EXPECT_FALSE(parse_basic_credentials(""));
  EXPECT_FALSE(parse_basic_credentials("Bearer abc"));
  EXPECT_FALSE(parse_basic_credentials("Basic !!!!"));
  EXPECT_FALSE(parse_basic_credentials("Basic YWxpY2U="));  // "alice": no colon
  EXPECT_FALSE(parse_basic_credentials("Basic YWxp")) << "base64 of 'ali' has no colon either";
}

TEST(BasicAuth, ChecksBcryptHashesThroughCrypt) {
  EXPECT_TRUE(bcrypt_matches(kAlice, "correct horse"));
  EXPECT_FALSE(bcrypt_matches(kAlice, "correct horsE"));
  EXPECT_FALSE(bcrypt_matches(kAlice, ""));
  EXPECT_TRUE(bcrypt_matches(kBob, "s3cret:with colon"));
  EXPECT_FALSE(bcrypt_matches("not a hash", "x"));
  // $2b$ is the same algorithm under the name OpenBSD gave it later.
  std::string as_2b = kAlice;
  as_2b[2] = 'b';
  EXPECT_TRUE(bcrypt_matches(as_2b, "correct horse"));
}

TEST(BasicAuth, LetsInOnlyAKnownUserWithTheRightPassword) {
  BasicAuth auth({{"alice", kAlice}, {"bob", kBob}});
  EXPECT_FALSE(auth.open());
  EXPECT_TRUE(auth.allows(kAliceRight));
  EXPECT_TRUE(auth.allows(kBobRight));
  EXPECT_FALSE(auth.allows(kAliceWrong));
  EXPECT_FALSE(auth.allows(kCarol)) << "an unknown user with a password a known one has";
  EXPECT_FALSE(auth.allows(""));
  EXPECT_FALSE(auth.allows("Bearer token"));
}

TEST(BasicAuth, RemembersVerdictsOnlyOnceDecided) {
  BasicAuth auth({{"alice", kAlice}});
  EXPECT_FALSE(auth.remembered(kAliceRight)) << "bcrypt has not run yet";
  EXPECT_EQ(auth.remembered(""), false) << "no credentials need no bcrypt";
  EXPECT_TRUE(auth.verify(kAliceRight));
  EXPECT_FALSE(auth.verify(kAliceWrong));
  EXPECT_EQ(auth.remembered(kAliceRight), true);
  EXPECT_EQ(auth.remembered(kAliceWrong), false);
  // Another configuration (a reload with a new hash) remembers nothing of this one.
  BasicAuth next({{"alice", kBob}});
  EXPECT_FALSE(next.remembered(kAliceRight));
  EXPECT_FALSE(next.allows(kAliceRight));
}

TEST(BasicAuth, NoUsersLetsEveryoneIn) {
  BasicAuth auth({});
  EXPECT_TRUE(auth.open());
  EXPECT_TRUE(auth.allows(""));
}

}  // namespace
}  // namespace nw::agent
