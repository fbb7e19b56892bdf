#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# noisewatch as a user installs it (issue #29): `cmake --install` into a clean prefix and the .deb
# CPack builds, each checked from the installed paths only.
#   tests/install/install_test.sh BUILD_DIR
# Run by ctest (test `install`) after the build. As root it also runs noisewatch from the installed
# path (eBPF); without root those steps are skipped and said so.
set -euo pipefail
build=$(cd "${1:?usage: install_test.sh BUILD_DIR}" && pwd)
tmp=$(mktemp -d /tmp/nw-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
ok() { echo "install_test: ok: $*"; }
py=/usr/bin/python3  # the system's, not a shim on PATH
root=0; [[ $(id -u) -eq 0 ]] && root=1

# ---- cmake --install into a clean prefix ------------------------------------------------------
p=$tmp/prefix
cmake --install "$build" --prefix "$p" >"$tmp/install.log" || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
for f in bin/noisewatch include/noisewatch/markers.h share/cmake/noisewatch/noisewatchConfig.cmake \
         share/cmake/noisewatch/noisewatchConfigVersion.cmake share/pkgconfig/noisewatch.pc \
         lib/systemd/system/noisewatch-agent.service share/man/man1/noisewatch.1 share/man/man1/noisewatch-run.1 \
         share/man/man1/noisewatch-check.1 share/man/man1/noisewatch-tune.1 share/man/man1/noisewatch-agent.1 \
         share/bash-completion/completions/noisewatch share/zsh/vendor-completions/_noisewatch \
         share/doc/noisewatch/README.md share/doc/noisewatch/agent.md share/doc/noisewatch/LICENSE \
         share/doc/noisewatch/LICENSES/Apache-2.0.txt share/doc/noisewatch/CHANGELOG.md; do
  [[ -e $p/$f ]] || fail "cmake --install did not install $f"
done
grep -qx "ExecStart=$p/bin/noisewatch agent --listen 127.0.0.1:9477" "$p/lib/systemd/system/noisewatch-agent.service" ||
  fail "the unit does not name the installed binary: $(grep ExecStart= "$p/lib/systemd/system/noisewatch-agent.service" | head -1)"
ok "cmake --install: binary, header, CMake and pkg-config packages, unit, man pages, completions, docs"

# --version: the version and the commit it was built from.
v=$("$p/bin/noisewatch" --version)
[[ $v =~ ^noisewatch\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] || fail "--version printed '$v'"
ok "$v"

# Every man page renders without a warning.
for page in "$p"/share/man/man1/*.1; do
  warn=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>&1 >/dev/null) || fail "man -l $page failed: $warn"
  [[ -z $warn ]] || fail "man -l $(basename "$page") warns: $warn"
  # Read whole, not piped into grep -q: grep's early exit would kill man with SIGPIPE (pipefail).
  text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
  [[ $text == *OPTIONS* ]] || fail "$(basename "$page") has no OPTIONS section"
done
ok "$(ls "$p"/share/man/man1 | wc -l) man pages render without warnings"

# Bash completion: the subcommands, --format's values, knob ids, files.
complete_words() {  # WORDS... (the last is the word being completed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _noisewatch; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$p/share/bash-completion/completions/noisewatch" "$@"
}
subs=$(complete_words noisewatch "")
for s in run report check snapshot compare events agent tune; do grep -qx "$s" <<<"$subs" || fail "bash completion of 'noisewatch ' lacks $s: $subs"; done
[[ $(complete_words noisewatch check --format "" | sort | tr '\n' ' ') == "json prometheus text " ]] ||
  fail "bash completion of 'check --format': $(complete_words noisewatch check --format "")"
grep -qx aslr-off,smt-off <<<"$(complete_words noisewatch tune apply --only aslr-off,sm)" || fail "bash completion of knob ids after a comma"
grep -qx -- --web-config <<<"$(complete_words noisewatch agent --web)" || fail "bash completion of agent options"
ok "bash completion offers the subcommands, --format values, knob ids and options"

# A consumer project: find_package(noisewatch), two windows marked, run under --windows.
mkdir -p "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(noisewatch 0.1 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE noisewatch::markers)
CMAKE
cat >"$tmp/consumer/main.c" <<'C'
#include <noisewatch/markers.h>
#include <stdio.h>
int main(void) {
  volatile unsigned long x = 1;
  for (int w = 0; w < 2; ++w) {
    NOISEWATCH_WINDOW_BEGIN_LABEL(w);
    for (long i = 0; i < 2000000; ++i) x = x * 2654435761u + 1;
    NOISEWATCH_WINDOW_END();
  }
  printf("%lu\n", (unsigned long)x);
  return 0;
}
C
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$p" >"$tmp/consumer.log" 2>&1 ||
  { cat "$tmp/consumer.log" >&2; fail "find_package(noisewatch) in a consumer project"; }
cmake --build "$tmp/consumer/build" >>"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log" >&2; fail "building the consumer"; }
pc=$(PKG_CONFIG_PATH="$p/share/pkgconfig" pkg-config --cflags noisewatch) || fail "pkg-config --cflags noisewatch"
# shellcheck disable=SC2086  # the flags are words
cc $pc -c "$tmp/consumer/main.c" -o "$tmp/consumer/pc.o" || fail "compiling with pkg-config --cflags noisewatch ($pc)"
ok "a consumer project finds noisewatch::markers and pkg-config the header"

if ((root)); then
  "$p/bin/noisewatch" --runs 2 --warmup 0 -q --json "$tmp/true.json" -- true >/dev/null 2>"$tmp/err" ||
    fail "noisewatch --runs 2 -- true from the installed path: $(cat "$tmp/err")"
  n=$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$tmp/true.json")
  [[ $n == 2 ]] || fail "noisewatch --runs 2 -- true recorded $n runs"
  "$p/bin/noisewatch" --windows --runs 1 --warmup 0 -q --json "$tmp/consumer.json" -- "$tmp/consumer/build/consumer" \
    >/dev/null 2>"$tmp/err" || fail "the consumer under noisewatch --windows: $(cat "$tmp/err")"
  w=$("$py" -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["runs"] if "window" in r))' "$tmp/consumer.json")
  [[ $w == 2 ]] || fail "the consumer marked two windows; the record has $w"
  ok "from the installed path: --runs 2 -- true recorded 2 runs; the consumer's 2 windows recorded"
else
  echo "install_test: skipped (not root): running noisewatch from the installed path"
fi

# ---- the .deb ---------------------------------------------------------------------------------
(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/deb/noisewatch_*.deb 2>/dev/null | head -1)
[[ -n $deb ]] || fail "cpack made no noisewatch_*.deb: $(ls "$tmp/deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libbpf libelf libssl libyaml-cpp libcrypt libhwloc libpfm4 libc6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (from the linked libraries): $depends"
done
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/noisewatch ./usr/lib/systemd/system/noisewatch-agent.service ./usr/share/man/man1/noisewatch.1 \
         ./usr/share/bash-completion/completions/noisewatch ./usr/include/noisewatch/markers.h; do
  grep -q " $f\$" <<<"$contents" || fail "the .deb lacks $f"
done
grep -q "wants/" <<<"$contents" && fail "the .deb enables a unit (a .wants/ link)"
x=$tmp/debroot
dpkg-deb -x "$deb" "$x"
grep -qx "ExecStart=/usr/bin/noisewatch agent --listen 127.0.0.1:9477" "$x/usr/lib/systemd/system/noisewatch-agent.service" ||
  fail "the packaged unit does not name /usr/bin/noisewatch"
"$x/usr/bin/noisewatch" --version | grep -q "^noisewatch " || fail "the packaged binary's --version"
dpkg-deb -e "$deb" "$tmp/control"
grep -q 'NOISEWATCH_SETCAP:-0}" = 1' "$tmp/control/postinst" || fail "postinst sets capabilities without being asked"
# The maintainer script, run as dpkg would, without the choice: no capability appears.
cp "$x/usr/bin/noisewatch" "$tmp/nw-copy"
sed "s|/usr/bin/noisewatch|$tmp/nw-copy|g" "$tmp/control/postinst" >"$tmp/postinst"
env -u NOISEWATCH_SETCAP sh "$tmp/postinst" configure >/dev/null
if command -v getcap >/dev/null; then [[ -z $(getcap "$tmp/nw-copy") ]] || fail "postinst gave capabilities unasked"; fi
ok "the .deb: $(basename "$deb"), Depends from the linked libraries, unit installed not enabled, no capability unasked"
