#!/usr/bin/env bash
# Installs what noisewatch needs to build and test, from Debian 12 packages. Idempotent:
# does nothing (and needs no network) when everything is already there.
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config clang llvm bpftool libbpf-dev libelf-dev
      zlib1g-dev libclang-rt-14-dev libpfm4-dev libboost-dev libfmt-dev nlohmann-json3-dev libcli11-dev
      libhwloc-dev libgtest-dev libgmock-dev stress-ng linux-perf prometheus chromium
      systemtap-sdt-dev python3-jsonschema)
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
