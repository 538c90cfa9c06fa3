#!/bin/sh
# SPDX-License-Identifier: MIT
# multi_gpu_smoke.sh SCRIPT BUILD WORKDIR: bench/multi_gpu.sh runs to completion at a small
# size (on platform cpu over 4 emulated GPUs, so N = 1, 2 and 4; on a GPU machine over the
# counts of 1, 2 and 4 it has), exits 0, prints a line with a rate and every ratio for each
# figure and N, and writes one JSON document per run.
set -u
script=$1
build=$2
dir=$3/multi-gpu-smoke.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
export HIPCPU_DEVICE_COUNT=${HIPCPU_DEVICE_COUNT:-4} HIPCPU_DEVICE_MEMORY_MB=${HIPCPU_DEVICE_MEMORY_MB:-1024}
fail=0
# How many GPUs the runtime reports (HIPCPU_DEVICE_COUNT on cpu): the script measures N up to it.
"$build/tools/hipfile-io" --multi-gpu --file "$dir/probe" -s 4k -n 1 --baselines none --json "$dir/probe.json" \
    > /dev/null 2>&1 || { echo "FAIL: hipfile-io --multi-gpu failed"; exit 1; }
gpus=$(tr -d ' \n' < "$dir/probe.json" | sed -n 's/.*"devices":\[\([0-9,]*\)\].*/\1/p' | awk -F, '{print NF}')
rm -f "$dir/probe" "$dir/probe.json"
counts=
for n in 1 2 4; do [ "$n" -le "${gpus:-0}" ] && counts="$counts $n"; done
[ -n "$counts" ] || { echo "FAIL: hipfile-io reports no GPU"; exit 1; }
runs=$((2 + 6 * $(echo $counts | wc -w)))  # the host limit's two, then six figures per N
BUILD=$build SIZE=64M REPS=2 SLOW_REPS=1 DATA_DIR=$dir COUNTS="1 2 4" sh "$script" "$dir/out" > "$dir/printed.txt" 2>&1 ||
    { echo "FAIL: bench/multi_gpu.sh exited $?"; fail=1; }
cat "$dir/printed.txt"
for n in $counts; do
    for kind in read-hot-shared read-hot-per-gpu read-cold-shared read-cold-per-gpu write-shared write-per-gpu; do
        grep -Eq "^$kind +$n +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9.]+ +[0-9.]+ +[0-9.]+ " "$dir/printed.txt" ||
            { echo "FAIL: no complete line for $kind over $n GPUs"; fail=1; }
    done
done
grep -Eq '^host limit: raw parallel pread [0-9]+\.[0-9]{2} GB/s, pwrite [0-9]+\.[0-9]{2} GB/s' "$dir/printed.txt" ||
    { echo "FAIL: no host limit line"; fail=1; }
grep -q '^safetensors load: skipped (set CKPT' "$dir/printed.txt" || { echo "FAIL: no skipped-load line"; fail=1; }
grep -q "^runs: $runs, failed: 0" "$dir/printed.txt" || { echo "FAIL: not $runs runs without failure"; fail=1; }
[ "$(grep -c '"figure": ' "$dir/out/results.json")" = "$runs" ] || { echo "FAIL: results.json does not hold $runs runs"; fail=1; }
ls "$dir" | grep -q 'hipfile-mg' && { echo "FAIL: the data files were left behind"; fail=1; }
[ "$fail" = 0 ] && echo "ok: bench/multi_gpu.sh at 64M over$counts GPU(s)"
exit $fail
