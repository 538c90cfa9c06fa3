#!/bin/sh
# SPDX-License-Identifier: MIT
# Everything one GPU-machine session checks, in one command (bench/RESULTS.md, "How the figures are taken"):
#   source .devkit/env.sh && bench/gpu_session.sh $OUT
# 1. configure and build platform=nvidia (release, tests on); 2. every test suite;
# 3. the figures of record (bench/run.sh); 4. with two or more GPUs, the multi-GPU aggregate
#    read rate against the single-GPU rate measured in the same run.
# Writes OUT/{build.log,test.log,stats.txt,summary.txt,results.json,check.txt,contention.txt,multigpu.txt}.
set -u
out=${1:?usage: bench/gpu_session.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-/tmp/hipfile-build}
export HIPFILE_TEST_DIR=${HIPFILE_TEST_DIR:-/tmp}
mkdir -p "$out"

if ! { meson setup "$build" "$here" -Dplatform=nvidia --buildtype=release && ninja -C "$build"; } > "$out/build.log" 2>&1; then
    tail -n 40 "$out/build.log"
    exit 1
fi

echo "== tests"
# Each test's own limit (multiplier 1): the limits are set for a loaded machine, and a test that
# starts many GPU processes needs its whole limit beside seven others.
timeout "${TEST_TIMEOUT:-300}" meson test -C "$build" --print-errorlogs --num-processes 8 > "$out/test.log" 2>&1
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|SKIP)|^(Ok|Fail|Skipped|Timeout): " "$out/test.log"

echo "== fastpath on this machine (the real libcufile), and where every byte went"
meson test -C "$build" fastpath-real-cufile -v 2>&1 | grep -E "report|stats|path|OK|FAIL|SKIP" | head -n 20
"$build/tools/hipfile-stats" -- "$build/tools/hipfile-io" --file /tmp/hipfile-stats.dat --create --overwrite -s 1G -b 64M -t 2 \
    -n 1 --baselines none > "$out/stats.txt" 2>&1
grep -iE "path|engine|cufile|read|write" "$out/stats.txt" | head -n 20
rm -f /tmp/hipfile-stats.dat

echo "== figures of record"
BUILD=$build SLOW_REPS=${SLOW_REPS:-1} timeout "${BENCH_TIMEOUT:-330}" "$here/bench/run.sh" "$out" | tail -n 20

gpus=$(nvidia-smi -L 2>/dev/null | grep -c GPU)
if [ "${gpus:-0}" -ge 2 ]; then
    echo "== multi-GPU (8 GiB, page cache hot): one GPU, then GPUs 0 and 1 together"
    io=$build/tools/hipfile-io
    f="--file /tmp/hipfile-multi.dat --file-size 8G -s 8G -b 1G -n 3 --baselines copy"
    { "$io" $f --create --overwrite --devices 0 && "$io" $f --devices 0,1; } > "$out/multigpu.txt" 2>&1
    grep -E "hipfile|ceiling|GPU[0-9]" "$out/multigpu.txt"
    rm -f /tmp/hipfile-multi.dat
fi
