#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when C or C++ lines changed since BASE are not in the house style (.clang-format,
# clang-format 14 from Debian 12). Only changed lines are judged, as in review.
#   scripts/check_format.sh              lines changed since .clang-format last changed (CI: every
#                                        line written since the style was applied to the whole tree)
#   scripts/check_format.sh BASE         lines changed since BASE, working tree included (HEAD:
#                                        what you are about to commit)
#   scripts/check_format.sh --fix [BASE] formats those lines in place
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = "--fix" ] && { fix=1; shift; }
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check_format: not a git checkout: nothing tells which lines changed; skipped"
  exit 77
fi
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing: apt install clang-format"; exit 1; }
base=${1:-$(git log -1 --format=%H -- .clang-format)}
[ -n "$base" ] || { echo "check_format: .clang-format is not committed yet: give a BASE"; exit 1; }
paths=(-- . ':(exclude)bpf/vmlinux' ':(exclude)tests/data')
if [ $fix = 1 ]; then
  git clang-format --quiet "$base" "${paths[@]}" || true
  exit 0
fi
out=$(git clang-format --diff "$base" "${paths[@]}")
case "$out" in
  "" | "no modified files to format" | "clang-format did not modify any files")
    echo "format: every C/C++ line changed since ${base:0:12} is in the house style"
    exit 0 ;;
esac
printf '%s\n' "$out"
echo "check_format: the lines above are not in the house style: scripts/check_format.sh --fix ${1:-} formats them"
exit 1
