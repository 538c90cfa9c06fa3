#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the C API's libFuzzer target (clang, platform=cpu, ASan+UBSan) and runs it for a bounded
# time on a copy of the corpus kept in test/fuzz/corpus (new inputs go to the copy, so the tree
# does not change). Prints "fuzz: N executions, M crashes" and exits non-zero on any finding.
#   scripts/fuzz.sh            # 120 s
#   FUZZ_SECONDS=600 BUILD=build-fuzz scripts/fuzz.sh
#   FUZZ_REPLAY=1 scripts/fuzz.sh   # the corpus once, no new inputs
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-fuzz}
seconds=${FUZZ_SECONDS:-120}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dplatform=cpu -Dfuzz=true -Dtests=false -Dtools=false \
    -Dexamples=false -Dbench=disabled -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
ninja -C "$build" -j "${JOBS:-$(nproc)}" test/fuzz/hipfile_c_api_fuzz || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/findings"
cp test/fuzz/corpus/* "$work/corpus/"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}  # poisoned lanes and retired flag words are kept on purpose
export HIPFILE_TEST_DIR=${HIPFILE_TEST_DIR:-$work}
# FUZZ_REPLAY=1: run every input of the corpus once (-runs=0) and nothing else: deterministic.
limit=-max_total_time="$seconds"
[ "${FUZZ_REPLAY:-0}" = 1 ] && limit=-runs=0
"$build/test/fuzz/hipfile_c_api_fuzz" "$limit" -timeout=30 -rss_limit_mb=4096 \
  -artifact_prefix="$work/findings/" -print_final_stats=1 "$work/corpus" test/fuzz/corpus > "$work/log" 2>&1
rc=$?
tail -n 25 "$work/log"
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' | tail -n 1)
crashes=$(find "$work/findings" -type f | wc -l)
echo "fuzz: ${runs:-0} executions, $crashes crashes (exit $rc)"
for f in "$work"/findings/*; do [ -f "$f" ] && { echo "finding: $(basename "$f")"; od -An -tx1 "$f" | head -n 8; }; done
[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]
