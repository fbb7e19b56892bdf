#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds into build/ (incremental when run again).
#   scripts/build.sh          everything: noisewatch, the demo, the tools and the test suite
#   scripts/build.sh --demo   only noisewatch and the demo benchmark (no test dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
tests=ON
targets=()
if [ "${1:-}" = "--demo" ]; then
  tests=OFF
  targets=(--target noisewatch arraysum)
fi
gen=()
command -v ninja >/dev/null && [ ! -f build/CMakeCache.txt ] && gen=(-G Ninja)
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DNOISEWATCH_TESTS="$tests" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
