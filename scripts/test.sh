#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quick start 2: install, build, and run the whole test suite (unit + end-to-end) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
scripts/build.sh
cd build
ctest --output-on-failure "$@"
