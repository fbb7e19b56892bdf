#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What `noisewatch agent` costs: its own CPU time (utime+stime of every thread, from
# /proc/PID/stat) over DURATION seconds, as a percentage of one CPU; and, separately, the time
# its eBPF programs ran inside the kernel (kernel.bpf_stats_enabled), which is charged to
# whatever task or interrupt they ran in and so never shows in the agent's own times.
#
# usage: sudo bench/agent_overhead.sh [NOISEWATCH] [DURATION] [SCRAPE_EVERY] [plain|tls]
#   NOISEWATCH    the binary (default: build/noisewatch next to this script)
#   DURATION      seconds to measure (default 30)
#   SCRAPE_EVERY  also GET /metrics every N seconds, as Prometheus would (default 0: idle)
#   tls           serve through --web-config: a certificate made here with openssl, basic auth
#                 with a bcrypt hash (htpasswd -B, cost 10); each scrape is a new connection (curl),
#                 so each pays a full handshake, where Prometheus keeps its connection alive
# A benchmark, not a test: run it on a quiet machine and read the numbers. Every figure comes
# from a command whose status is checked: an agent that dies, a scrape that fails, or a program
# whose run time bpftool cannot give ends the script with exit 1 and says which, never a 0 %.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/noisewatch}
duration=${2:-30}
scrape=${3:-0}
mode=${4:-plain}
case $mode in plain | tls) ;; *) echo "agent_overhead: the fourth argument is plain or tls, not '$mode'" >&2; exit 125 ;; esac
[ -x "$bin" ] || { echo "agent_overhead: $bin is not executable; build noisewatch first" >&2; exit 125; }
[ "$(id -u)" = 0 ] || { echo "agent_overhead: needs root (eBPF)" >&2; exit 125; }

err=$(mktemp)
pki=$(mktemp -d)
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
  [ -n "${pid:-}" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  echo "$stats_was" > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true
  rm -rf "$err" "$pki"
}
trap cleanup EXIT INT TERM

web=""
scheme=http
client=""
if [ "$mode" = tls ]; then
  for t in openssl htpasswd curl; do
    command -v $t >/dev/null || { echo "agent_overhead: tls needs $t (apt-get install openssl apache2-utils curl)" >&2; exit 125; }
  done
  (cd "$pki" &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 1 \
      -subj /CN=bench-ca >/dev/null 2>&1 &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout agent.key -out agent.csr \
      -subj /CN=127.0.0.1 >/dev/null 2>&1 &&
    printf 'subjectAltName=IP:127.0.0.1\n' >san.ext &&
    openssl x509 -req -in agent.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out agent.crt -days 1 -extfile san.ext \
      >/dev/null 2>&1) || { echo "agent_overhead: openssl could not make the certificates" >&2; exit 125; }
  printf 'tls_server_config:\n  cert_file: agent.crt\n  key_file: agent.key\nbasic_auth_users:\n  bench: %s\n' \
    "$(htpasswd -nbBC 10 '' bench-password | tr -d ':\n')" >"$pki/web.yml"
  web="--web-config $pki/web.yml"
  scheme=https
  client="--cacert $pki/ca.crt -u bench:bench-password"
fi

# shellcheck disable=SC2086  # $web is empty or two words
"$bin" agent --listen 127.0.0.1:0 $web 2>"$err" &
pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|.*listening on https*://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$err")
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; exit 125; }
  sleep 0.1
done
[ -n "$port" ] || { echo "agent_overhead: the agent did not start" >&2; cat "$err" >&2; exit 125; }
sleep 2  # loading the programs is a one-off cost, not the steady state measured here

fail() { echo "agent_overhead: $*" >&2; exit 1; }
alive() { kill -0 "$pid" 2>/dev/null || { cat "$err" >&2; fail "the agent (pid $pid) died"; }; }
number() { case $1 in '' | *[!0-9]*) fail "$2: no figure (got '$1')" ;; esac; echo "$1"; }
ticks() { alive; number "$(awk '{ print $14 + $15 }' "/proc/$pid/stat")" "utime+stime of /proc/$pid/stat"; }
# The same in nanoseconds, for a figure finer than one clock tick: every thread's run time.
run_ns() { alive; number "$(cat /proc/"$pid"/task/*/schedstat | awk '{ s += $1 } END { printf "%d\n", s }')" "schedstat of the agent's threads"; }
prog_ids() { grep -h '^prog_id:' /proc/"$pid"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u; }
bpf_ns() {
  ids=$(prog_ids)
  [ -n "$ids" ] || fail "the agent holds no BPF program (nothing to measure)"
  total=0
  for id in $ids; do
    out=$(bpftool prog show id "$id") || fail "bpftool prog show id $id failed"
    case $out in "$id:"*) ;; *) fail "bpftool prog show id $id: unexpected output '$out'" ;; esac
    # bpftool omits run_time_ns for a program that has not run yet: that one is a true 0.
    ns=$(printf '%s\n' "$out" | sed -n 's/.*run_time_ns \([0-9]*\).*/\1/p')
    total=$((total + ${ns:-0}))
  done
  # The scheduler's programs run all the time: a total of 0 means the statistics are not counting.
  [ "$total" -gt 0 ] || fail "no run_time_ns for any of the agent's BPF programs: kernel.bpf_stats_enabled is not counting"
  echo "$total"
}

echo 1 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || fail "cannot enable kernel.bpf_stats_enabled"
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 1 ] || fail "kernel.bpf_stats_enabled stays off"
command -v bpftool >/dev/null || fail "needs bpftool (apt-get install bpftool)"

hz=$(getconf CLK_TCK)
t0=$(ticks); r0=$(run_ns); b0=$(bpf_ns); s0=$(date +%s.%N)
scrapes=0
if [ "$scrape" -gt 0 ]; then
  end=$(( $(date +%s) + duration ))
  while [ "$(date +%s)" -lt "$end" ]; do
    # shellcheck disable=SC2086  # $client is empty or four words
    curl -sf -o /dev/null $client "$scheme://127.0.0.1:$port/metrics" || fail "GET $scheme /metrics failed"
    scrapes=$((scrapes + 1))
    # Never past the end: a window shorter than the interval stays DURATION long.
    left=$((end - $(date +%s)))
    if [ "$left" -lt "$scrape" ]; then
      [ "$left" -le 0 ] || sleep "$left"
      break
    fi
    sleep "$scrape"
  done
else
  sleep "$duration"
fi
t1=$(ticks); r1=$(run_ns); b1=$(bpf_ns); s1=$(date +%s.%N)

awk -v t0="$t0" -v t1="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" -v b0="$b0" -v b1="$b1" -v r0="$r0" -v r1="$r1" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v cpus="$(nproc)" -v scrape="$scrape" -v scrapes="$scrapes" -v mode="$mode" 'BEGIN {
  wall = s1 - s0
  printf "agent process: %.3f%% of one CPU (%d ticks of 1/%d s over %.1f s)\n", (t1 - t0) / hz / wall * 100, t1 - t0, hz, wall
  printf "agent threads (schedstat): %.4f%% of one CPU (%.1f ms on CPU)\n", (r1 - r0) / 1e9 / wall * 100, (r1 - r0) / 1e6
  printf "eBPF programs: %.3f%% of one CPU (%.1f ms in the kernel, charged to other tasks)\n", (b1 - b0) / 1e9 / wall * 100, (b1 - b0) / 1e6
  if (scrapes > 0) printf "per scrape: %.2f ms of the agent threads (all included)\n", (r1 - r0) / 1e6 / scrapes
  printf "conditions: %d CPUs watched, load average %s, %s, %s\n", cpus, load, (scrape > 0 ? "scraped every " scrape " s (" scrapes " scrapes)" : "not scraped"), (mode == "tls" ? "TLS + basic auth, a new connection per scrape" : "plain HTTP")
}'
