# SPDX-License-Identifier: Apache-2.0
# Shared by the bench/ scripts that source it: the checks every script makes before measuring,
# and the statistics they print. Sourced after `set -u -o pipefail`; `me` names the script.
export LC_ALL=C  # decimal points in awk and sort -g
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
repo=$(cd "$here/.." && pwd)
me=$(basename "${BASH_SOURCE[1]}")

# bench_setup BUILD_ARG BINARIES TOOLS: sets `build` (default <repo>/build); exits 125 unless each
# binary is built there, the script runs as root and each tool is installed.
bench_setup() {
  build=$(cd "${1:-$repo/build}" 2>/dev/null && pwd) || { echo "$me: no build directory ${1:-}" >&2; exit 125; }
  local b t
  for b in $2; do
    [[ -x $build/$b ]] || { echo "$me: $build/$b missing: build it first (scripts/build.sh)" >&2; exit 125; }
  done
  [[ $(id -u) -eq 0 ]] || { echo "$me: must run as root (eBPF)" >&2; exit 125; }
  for t in $3; do
    command -v "$t" >/dev/null || { echo "$me: needs $t (scripts/install-deps.sh bench)" >&2; exit 125; }
  done
}
# whole_numbers VAR...: each variable holds a whole number >= 1, else exit 125.
whole_numbers() {
  local v
  for v in "$@"; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$me: $v must be a whole number >= 1 (got '${!v}')" >&2; exit 125; }
  done
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# verdict VALUE TARGET: PASS for a number <= TARGET, FAIL for anything else ("nan" included).
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { print (x + 0 == x && x <= t) ? "PASS" : "FAIL" }'; }
