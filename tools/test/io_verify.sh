#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-io --verify passes in every mode that works now, and its --json carries the
# documented keys. Small sizes: this is a correctness test, not a measurement.
# usage: io_verify.sh HIPFILE_IO JSON_CHECK WORKDIR
set -eu
io=$1
json_check=$2
dir=$3/io-verify.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
file=$dir/data
common="--file $file --size 8M --io-size 1M --reps 1 --baselines none --verify"

run() {
    echo "== hipfile-io $*"
    "$io" $common "$@" --json "$dir/out.json" > "$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; exit 1; }
    "$json_check" "$dir/out.json" tool config.op config.mem results.hipfile.gbps_best results.hipfile.gbps_median \
        verify status
    grep -q '^verify: passed' "$dir/out.txt"
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
# Writes leave the file holding the pattern (the verify pass rewrites it), so a read follows.
run --write --threads 2
run --write --direct --register
run --read
run --api async --streams 2
run --api batch --batch 8 --io-size 64k --random
run --api async --write --streams 2
run --api batch --write --batch 8 --io-size 64k

# Every baseline once, with the ratio keys.
"$io" --file "$file" --size 8M --io-size 1M --reps 2 --threads 2 --json "$dir/all.json" > "$dir/out.txt" 2>&1 ||
    { cat "$dir/out.txt"; exit 1; }
"$json_check" "$dir/all.json" machine.platform machine.gpus config.engine_threads results.hipfile results.pinned_h2d \
    results.pinned_d2h results.raw results.naive ratios.vs_pinned_copy.best ratios.vs_raw.median ratios.vs_naive.best

# Usage errors exit 2.
set +e
"$io" --file "$file" --io-size bogus > /dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || { echo "bad size: exit $rc, want 2"; exit 1; }
echo "ok"
