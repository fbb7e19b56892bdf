#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches and unpacks a Debian 12 kernel for the guest bench, once per machine, and prints the
# folder it is in (boot/vmlinuz-*, boot/config-*, lib/modules/*).
#   tests/vm/kernel.sh [FLAVOUR]     amd64 (default), cloud-amd64 or rt-amd64
# The newest linux-image-6.1.0-N-FLAVOUR-unsigned in the archive is taken with `apt-get download`
# and unpacked with dpkg-deb: nothing is installed on this machine (no /boot, no initramfs hooks).
# NW_VM_KERNEL_PKG=<package> takes that package instead; NW_VM_CACHE moves the cache
# (default /var/cache/noisewatch-vm).
set -euo pipefail
flavour=${1:-amd64}
case "$flavour" in
  amd64 | cloud-amd64 | rt-amd64) ;;
  *) echo "kernel.sh: unknown flavour '$flavour' (amd64, cloud-amd64 or rt-amd64)" >&2; exit 125 ;;
esac
cache=${NW_VM_CACHE:-/var/cache/noisewatch-vm}
mkdir -p "$cache"

pkg=${NW_VM_KERNEL_PKG:-}
if [ -z "$pkg" ]; then
  # A folder unpacked earlier serves without the network; the archive's newest otherwise.
  have=$(ls -d "$cache"/linux-image-6.1.0-*-"$flavour"-unsigned 2>/dev/null | sort -V | tail -1 || true)
  pkg=$(apt-cache pkgnames "linux-image-6.1.0-" 2>/dev/null | grep -E "^linux-image-6\.1\.0-[0-9]+-$flavour-unsigned\$" |
        sort -V | tail -1 || true)
  if [ -z "$pkg" ] && [ -n "$have" ]; then pkg=$(basename "$have"); fi
  if [ -z "$pkg" ]; then
    echo "kernel.sh: no linux-image-6.1.0-*-$flavour-unsigned in apt's lists: run apt-get update (Debian 12's archive)" >&2
    exit 125
  fi
fi
dir="$cache/$pkg"
if [ ! -f "$dir/.unpacked" ]; then
  tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) || {
    # apt's lists may be older than the archive (a package since superseded): refresh, once.
    apt-get update -qq >/dev/null 2>&1 || true
    (cd "$tmp" && apt-get download -q "$pkg" >/dev/null) || {
      echo "kernel.sh: cannot download $pkg (apt-get download failed)" >&2
      exit 125
    }
  }
  mkdir -p "$tmp/x"
  dpkg-deb -x "$tmp"/*.deb "$tmp/x"
  rm -rf "$dir"
  mv "$tmp/x" "$dir"
  touch "$dir/.unpacked"
fi
echo "$dir"
