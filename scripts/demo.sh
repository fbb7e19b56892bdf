#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Quick start 1: install, build, and explain the variance of the bundled demo benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
scripts/build.sh --demo
exec build/noisewatch --runs 10 -- build/arraysum "$@"
