#!/bin/sh
# SPDX-License-Identifier: MIT
# json_array.sh DIR: prints the JSON documents DIR/[0-9]*.json (one per run, in name order) as
# one JSON array, the results.json of bench/run.sh and bench/multi_gpu.sh.
dir=${1:?usage: json_array.sh DIR}
printf '['
first=1
for f in "$dir"/[0-9]*.json; do
    [ -e "$f" ] || continue
    [ $first = 1 ] || printf ','
    first=0
    cat "$f"
done
printf ']\n'
