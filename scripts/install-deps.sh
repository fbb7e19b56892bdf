#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what noisewatch needs, from Debian 12 packages, for one purpose:
#   scripts/install-deps.sh run     build and run noisewatch (what the demo needs)
#   scripts/install-deps.sh test    + the test suite's tools (default; what .ci/run needs)
#   scripts/install-deps.sh bench   + the anchors bench/overhead.sh measures noisewatch against
# Idempotent: does nothing (and needs no network) when everything is already there.
set -euo pipefail
purpose=${1:-test}

# Build and run: compilers, the BPF toolchain (clang, bpftool, libbpf), and the libraries;
# <sys/sdt.h> for the window markers (include/noisewatch/markers.h) and the workloads using them;
# OpenSSL, yaml-cpp and libxcrypt for the agent's --web-config (TLS, the file, bcrypt).
RUN=(build-essential cmake ninja-build pkg-config clang llvm bpftool libbpf-dev libelf-dev libssl-dev libyaml-cpp-dev libcrypt-dev
     zlib1g-dev libpfm4-dev libboost-dev libfmt-dev nlohmann-json3-dev libcli11-dev libhwloc-dev
     systemtap-sdt-dev)
# Tests: GoogleTest/GoogleMock; promtool (the agent's alert rules are checked with it); Chromium
# (the HTML report is checked in a headless browser); clang's sanitizer runtime (the fuzzer);
# python3-jsonschema (the timeline's trace file is checked against the trace-event format);
# podman (check inside a real container, on the machine's own root: no image registry) with runc,
# as crun refuses cgroup v1 hierarchies beside a v2 tree that holds a controller (hybrid mode);
# hyperfine (--windows-exec is tested on its runs); libbenchmark-dev (--windows gbench, on a
# Google Benchmark binary built with the tests); openssl, htpasswd (apache2-utils) and curl make
# the agent's certificates and password hash and scrape it over TLS; man-db and groff-base render
# the installed man pages, dpkg-dev's dpkg-shlibdeps gives the .deb its dependencies; zsh checks
# the generated zsh completion parses; qemu-system-x86, busybox-static and e2fsprogs boot the
# guests that run noisewatch on other kernels (tests/vm: Debian 12's 6.1, fetched by apt-get
# download into /var/cache/noisewatch-vm, never installed); clang-format checks the house style
# (scripts/check_format.sh).
TEST=(libgtest-dev libgmock-dev prometheus chromium libclang-rt-14-dev python3-jsonschema podman runc hyperfine
      libbenchmark-dev openssl apache2-utils curl man-db groff-base dpkg-dev zsh qemu-system-x86 busybox-static
      e2fsprogs clang-format)
# Benchmarks: perf stat and bpftrace, the anchors bench/overhead.sh prints beside noisewatch's
# start-up (bpftrace also reads check's thread run times there); jq and curl, with which it reads
# the records and scrapes the agent; hyperfine, to time commands by hand.
BENCH=(linux-perf bpftrace jq curl hyperfine)

case "$purpose" in
  run) PKGS=("${RUN[@]}") ;;
  test) PKGS=("${RUN[@]}" "${TEST[@]}") ;;
  bench) PKGS=("${RUN[@]}" "${BENCH[@]}") ;;
  *) echo "install-deps.sh: unknown purpose '$purpose' (run, test or bench)" >&2; exit 125 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "noisewatch: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The probes read tracepoints through tracefs; mount it if the system did not.
if [ ! -d /sys/kernel/tracing/events ]; then
  mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
fi
