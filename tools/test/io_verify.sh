#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-io --verify passes in every mode that works now, and its --json carries the
# documented keys. Small sizes: this is a correctness test, not a measurement.
# usage: io_verify.sh HIPFILE_IO JSON_CHECK WORKDIR
set -eu
# Each command is echoed (to stderr, in the test log), so that a failing check names itself.
set -x
io=$1
json_check=$2
dir=$3/io-verify.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
file=$dir/data
common="--file $file --size 8M --io-size 1M --reps 1 --baselines none --verify --overwrite"  # writes go to the test's own file

run() {
    echo "== hipfile-io $*"
    "$io" $common "$@" --json "$dir/out.json" > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
    "$json_check" "$dir/out.json" tool config.op config.mem results.hipfile.gbps_best results.hipfile.gbps_median \
        verify status
    grep -q '^verify: passed' "$dir/out.txt" || { echo "verify did not pass:"; cat "$dir/out.txt"; exit 1; }
}

for mem in device pinned pageable; do
    for reg in "" --register; do
        for mode in --buffered --direct; do
            run --mem "$mem" $reg $mode
        done
    done
done
run --random --io-size 64k --threads 2
run --cold --direct --threads 2
run --resident 0.5 --direct --threads 2
run --resident 0.25
# Writes leave the file holding the pattern (the verify pass rewrites it), so a read follows.
run --write --threads 2
run --write --direct --register
run --read
run --api async --streams 2
# The pattern is uploaded with a pageable hipMemcpy, which CUDA may return from before the bytes
# land; hip-cpu models that here. A stream-ordered write on a non-blocking stream must not see
# the old bytes (each run uploads a new pattern into the one buffer slot).
HIPCPU_PAGEABLE_DMA_DELAY_US=20000 run --write --api async --streams 1
HIPCPU_PAGEABLE_DMA_DELAY_US=20000 run --write --api async --streams 2 --direct
run --api batch --batch 8 --io-size 64k --random
run --api async --write --streams 2
run --api batch --write --batch 8 --io-size 64k

# Every baseline once, with the ratio keys: 8 requests of 1 MiB per pass, 2 passes.
"$io" --file "$file" --size 8M --io-size 1M --reps 2 --threads 2 --baselines all --json "$dir/all.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/all.json" machine.platform machine.gpus config.engine_threads results.hipfile results.pinned_h2d \
    results.pinned_d2h results.raw results.naive results.by_hand ratios.vs_pinned_copy.best ratios.vs_raw.median \
    ratios.vs_naive.best ratios.vs_by_hand.best ratios.vs_by_hand.median results.hipfile.iops_best \
    results.hipfile.iops_median results.hipfile.ops_per_pass=8 results.by_hand.ops_per_pass=8 \
    results.by_hand.gbps_best results.by_hand.iops_best results.by_hand.per_device results.raw.ops_per_pass=8 \
    results.hipfile.bytes_per_pass=8388608 results.hipfile.cpu_seconds results.hipfile.cpu_s_per_gb \
    results.raw.cpu_s_per_gb results.naive.cpu_s_per_gb results.by_hand.cpu_s_per_gb results.pinned_h2d.cpu_s_per_gb \
    results.stream.gbps_best results.stream.cpu_s_per_gb results.stream.bytes_per_pass=8388608 ratios.vs_stream.best \
    '!results.sync_serial' '!ratios.vs_sync_serial' verify=skipped status=ok
grep -q 'by hand: pread + hipMemcpy, 2 thr' "$dir/out.txt"
# The CPU column: a number of CPU seconds per GB in the hipfile row.
grep -q 'CPU s/GB' "$dir/out.txt"
grep -Eq '^  hipfile sync read +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+\.[0-9]{3} +2$' "$dir/out.txt"
# 'hand' alone: measured for device memory only, and the other baselines stay out.
"$io" --file "$file" --size 8M --io-size 64k --random --reps 1 --baselines hand --json "$dir/hand.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/hand.json" results.by_hand.iops_best results.hipfile.ops_per_pass=128 ratios.vs_by_hand.best \
    '!results.raw' '!results.naive' '!results.pinned_h2d' '!ratios.vs_raw'
"$io" --file "$file" --size 8M --io-size 1M --reps 1 --mem pinned --baselines hand --json "$dir/pinned.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/pinned.json" results.hipfile config.mem=pinned '!results.by_hand' '!ratios.vs_by_hand'
# Async with every baseline: sync_serial is measured.
"$io" --file "$file" --size 8M --io-size 1M --reps 1 --api async --streams 2 --baselines serial,hand \
    --json "$dir/async.json" > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/async.json" config.api=async results.sync_serial.ops_per_pass=8 ratios.vs_sync_serial.best \
    results.by_hand results.sync_serial.cpu_s_per_gb results.sync_serial.cpu_seconds

# A write measures no stream reader; 'stream' alone keeps the others out.
"$io" --file "$file" --size 8M --io-size 1M --reps 1 --write --overwrite --baselines all --json "$dir/w.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/w.json" results.raw '!results.stream' '!ratios.vs_stream'
"$io" --file "$file" --size 8M --io-size 64k --reps 1 --cold --baselines stream --json "$dir/s.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/s.json" results.stream.ops_per_pass results.stream.bytes_per_pass=8388608 ratios.vs_stream.median \
    '!results.raw' '!results.pinned_h2d'
grep -q 'hipfile vs one sequential reader .*(want >= 0.97 of the best reader)' "$dir/out.txt"

# --resident: each request's head cached, the rest not; the parts measurement and its ratio.
"$io" --file "$file" --size 8M --io-size 1M --reps 2 --direct --resident 0.5 --baselines parts --json "$dir/p.json" \
    > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/p.json" config.cache=partial config.resident results.parts.ops_per_pass=8 \
    results.parts.bytes_per_pass=8388608 results.parts.gbps_best results.parts.cpu_s_per_gb ratios.vs_parts.best \
    ratios.vs_parts.median page_cache_resident '!results.stream' '!results.raw'
grep -q 'page cache partial' "$dir/out.txt"
grep -q "hipfile vs its parts alone, summed .*(want >= 0.91" "$dir/out.txt"
# Without --resident there are no parts to measure.
"$json_check" "$dir/all.json" '!results.parts' '!ratios.vs_parts'

# Usage errors exit 2.
set +e
"$io" --file "$file" --io-size bogus > /dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "bad size: exit $rc, want 2"; exit 1; }
echo "ok"
