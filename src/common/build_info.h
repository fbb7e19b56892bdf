// SPDX-License-Identifier: Apache-2.0
// What this binary was built from, beyond its version (NOISEWATCH_VERSION): the commit, written
// at build time by cmake/Commit.cmake.
#pragma once

namespace nw {

// "1cfa5ec1a2b3", "1cfa5ec1a2b3-dirty" (built with uncommitted changes), or "unknown" (no git).
const char* build_commit();

}  // namespace nw
