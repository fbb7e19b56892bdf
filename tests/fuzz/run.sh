#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer target for compare's input parsers with clang (ASan + UBSan) and runs it
# for a bounded time, seeded with the sample inputs of the unit tests.
#   tests/fuzz/run.sh [SECONDS=60] [WORK_DIR=build-fuzz]
# nwcore is built with g++, so the parser sources are compiled here directly; they must not
# depend on the libbpf skeletons. Exit status: 0 when no crash was found.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-60}"
work="${2:-$root/build-fuzz}"
cxx="${FUZZ_CXX:-clang++}"

sources=(
  "$here/compare_parsers_fuzz.cpp"
  "$root"/src/compare/input_*.cpp
  "$root/src/compare/compare.cpp"
  "$root/src/compare/cpu_time.cpp"
  "$root/src/compare/summary.cpp"
  "$root/src/compare/timing.cpp"
  "$root/src/compare/noise_diff.cpp"
  "$root/src/compare/host_diff.cpp"
  "$root/src/compare/explanation.cpp"
  "$root/src/compare/pyperf_measures.cpp"
  "$root"/src/compare/render_*.cpp
  "$root/src/record/run_record.cpp"
  "$root/src/record/run_record_json.cpp"
  "$root/src/record/timeline_summary.cpp"
  "$root/src/record/window_labels.cpp"
  "$root/src/record/source_detail.cpp"
  "$root/src/common/durations.cpp"
  "$root/src/common/markdown.cpp"
  "$root/src/sources/vocabulary.cpp"
  "$root/src/system/huge_heap.cpp"
  "$root/src/stats/descriptive.cpp"
  "$root/src/stats/inference.cpp"
  "$root/src/stats/mann_whitney_exact.cpp"
)
binary="$work/compare_parsers_fuzz"
mkdir -p "$work/corpus" "$work/artifacts" "$work/obj"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -DFMT_HEADER_ONLY -I"$root/src" -I"$root")

# One object per source, compiled in parallel, rebuilt when the source or any header it may
# include is newer: these headers (nlohmann, Boost.Math) are slow to compile under sanitizers.
newest_header="$(ls -t "$root"/src/compare/*.h "$root"/src/stats/*.h "$root"/src/record/*.h "$root"/src/sources/*.h \
                  "$root"/src/common/*.h "$root"/src/system/huge_heap.h | sed -n 1p)"
stale=()
for src in "${sources[@]}"; do
  obj="$work/obj/$(basename "${src%.cpp}").o"
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then stale+=("$src"); fi
done
if (( ${#stale[@]} )); then
  echo "fuzz: compiling ${#stale[@]} source(s) with $cxx"
  printf '%s\n' "${stale[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'exec "$0" "$@" -c "{}" -o "'"$work"'/obj/$(basename "{}" .cpp).o"' "$cxx" "${flags[@]}"
fi
objects=()
for src in "${sources[@]}"; do objects+=("$work/obj/$(basename "${src%.cpp}").o"); done
relink=0
[[ -x "$binary" ]] || relink=1
for obj in "${objects[@]}"; do [[ "$obj" -nt "$binary" ]] && relink=1; done
if (( relink )); then
  "$cxx" -fsanitize=fuzzer,address,undefined "${objects[@]}" -lz -o "$binary"
fi

cp -f "$root"/tests/data/compare/*.json "$root"/tests/data/compare/broken/*.json "$work/corpus/"
cp -f "$root"/tests/data/compare/real/*.json "$root"/tests/data/compare/real/*.gz "$work/corpus/" 2>/dev/null || true
# A fixed seed keeps the CI gate reproducible; set NW_FUZZ_SEED=0 for a random one when hunting.
seed="${NW_FUZZ_SEED:-1}"
echo "fuzz: running for ${seconds}s (seed $seed)"
exec "$binary" -seed="$seed" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$here/json.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus"
