// SPDX-License-Identifier: Apache-2.0
#include "common/build_info.h"

#include "nw_commit.h"  // generated in the build directory (cmake/Commit.cmake)

namespace nw {

const char* build_commit() { return NOISEWATCH_COMMIT; }

}  // namespace nw
