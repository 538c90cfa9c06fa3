#!/bin/sh
# SPDX-License-Identifier: MIT
# multi_gpu_smoke.sh SCRIPT BUILD WORKDIR: bench/multi_gpu.sh runs to completion at a small
# size (on platform cpu over 4 emulated GPUs, so N = 1, 2 and 4), exits 0, prints a line with
# a rate and every ratio for each figure and N, and writes one JSON document per run.
set -u
script=$1
build=$2
dir=$3/multi-gpu-smoke.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
export HIPCPU_DEVICE_COUNT=${HIPCPU_DEVICE_COUNT:-4} HIPCPU_DEVICE_MEMORY_MB=${HIPCPU_DEVICE_MEMORY_MB:-1024}
fail=0
BUILD=$build SIZE=64M REPS=2 SLOW_REPS=1 DATA_DIR=$dir COUNTS="1 2 4" sh "$script" "$dir/out" > "$dir/printed.txt" 2>&1 ||
    { echo "FAIL: bench/multi_gpu.sh exited $?"; fail=1; }
cat "$dir/printed.txt"
# The emulated GPUs on cpu; a GPU machine with fewer than 4 measures fewer.
for n in 1 2 4; do
    for kind in read-hot-shared read-hot-per-gpu read-cold-shared read-cold-per-gpu write-shared write-per-gpu; do
        grep -Eq "^$kind +$n +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9.]+ +[0-9.]+ +[0-9.]+ " "$dir/printed.txt" ||
            { echo "FAIL: no complete line for $kind over $n GPUs"; fail=1; }
    done
done
grep -Eq '^host limit: raw parallel pread [0-9]+\.[0-9]{2} GB/s, pwrite [0-9]+\.[0-9]{2} GB/s' "$dir/printed.txt" ||
    { echo "FAIL: no host limit line"; fail=1; }
grep -q '^safetensors load: skipped (set CKPT' "$dir/printed.txt" || { echo "FAIL: no skipped-load line"; fail=1; }
grep -q '^runs: 20, failed: 0' "$dir/printed.txt" || { echo "FAIL: not 20 runs without failure"; fail=1; }
[ "$(grep -c '"figure": ' "$dir/out/results.json")" = 20 ] || { echo "FAIL: results.json does not hold 20 runs"; fail=1; }
ls "$dir" | grep -q 'hipfile-mg' && { echo "FAIL: the data files were left behind"; fail=1; }
[ "$fail" = 0 ] && echo "ok: bench/multi_gpu.sh at 64M over 1, 2 and 4 GPUs"
exit $fail
