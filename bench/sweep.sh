#!/bin/sh
# SPDX-License-Identifier: MIT
# The tuning sweeps behind the engine's defaults (bench/HISTORY.md, "How the defaults were
# chosen"): one call on the GPU machine, after bench/run.sh's build.
#   bench/sweep.sh OUTDIR
# Each line of OUTDIR/sweep.txt is one hipfile-io run under one setting: the hipfile rate (best
# and median GB/s, best kIOPS) and its ratios to the baselines measured in that same run.
# Environment: BUILD (default build-gpu), DATA_DIR (default /tmp), SIZE (default 8G: the hot
# reads), SLOW_SIZE (default 4G: cold reads and writes, disk-bound), PARTS (default all: a
# space-separated subset of threads chunk ceiling iops write mapped cold).
set -u
out=${1:?usage: bench/sweep.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-gpu}
data_dir=${DATA_DIR:-/tmp}
size=${SIZE:-8G}
slow=${SLOW_SIZE:-4G}
parts=${PARTS:-threads chunk ceiling iops write mapped cold}
io=$build/tools/hipfile-io
file=$data_dir/hipfile-sweep-read.dat
wfile=$data_dir/hipfile-sweep-write.dat
sweep=$out/sweep.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$sweep"

want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# run NAME ENV... -- HIPFILE-IO ARGS...: one setting, one line.
run() {
    name=$1
    shift
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    timeout 200 env $envs "$io" "$@" --json "$tmp/r.json" > "$tmp/table.txt" 2> "$tmp/err.txt"
    rc=$?
    if [ $rc -ne 0 ]; then
        printf '%-34s FAILED (exit %d): %s\n' "$name" $rc "$(tail -1 "$tmp/err.txt")" | tee -a "$sweep"
        return
    fi
    awk -v name="$name" -v envs="$envs" '
        /"hipfile": \{/ { in_h = 1 }
        in_h && /"gbps_best":/ { gsub(/,/, "", $2); gb = $2 }
        in_h && /"gbps_median":/ { gsub(/,/, "", $2); gm = $2 }
        in_h && /"iops_best":/ { gsub(/,/, "", $2); io = $2; in_h = 0 }
        /"vs_[a-z_]*": \{/ { key = $1; gsub(/[":]/, "", key) }
        /"best":/ && key != "" { gsub(/,/, "", $2); r = r sprintf(" %s=%.3f", substr(key, 4), $2); key = "" }
        END { printf "%-34s %7.2f best %7.2f median %9.1f kIOPS |%s |%s\n", name, gb, gm, io / 1000, r, envs }
    ' "$tmp/r.json" | tee -a "$sweep"
}

{
    echo "bench/sweep.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) commit ${COMMIT:-unknown}"
    echo "host: $(uname -n), $(nproc) CPUs; $(lscpu 2>/dev/null | grep -E '^(Model name|Thread\(s\) per core|NUMA node\(s\)|L3 cache)' | tr -s ' ' | tr '\n' ';')"
    command -v nvidia-smi > /dev/null && nvidia-smi topo -m 2>/dev/null | head -3
} >> "$sweep"

hot="--file $file --file-size $size -s $size -b ${BLOCK:-1G} -t 1 -n 5"
"$io" --file "$file" --file-size "$size" --create --overwrite -s 1G -b 1G -n 1 --baselines none > /dev/null 2>&1

if want threads; then
    # Engine threads under each way of waiting for copies (HIPFILE_WAIT): the rate and the CPU
    # it costs move apart with the worker count.
    for t in 8 12 14 15 16; do
        for w in poll spin block; do
            run "hot threads=$t wait=$w" HIPFILE_WAIT=$w -- $hot --engine-threads $t --baselines copy
        done
    done
    run "hot one $size call" -- --file "$file" --file-size "$size" -s "$size" -b "$size" -t 1 -n 5 --baselines none
    run "hot one $size call blocking" HIPFILE_WAIT=block -- --file "$file" --file-size "$size" -s "$size" -b "$size" -t 1 -n 5 --baselines none
fi
if want chunk; then
    for cd in 512k:4 1M:2 1M:4 2M:3 4M:2 8M:2; do
        c=${cd%:*} d=${cd#*:}
        run "hot chunk=$c depth=$d" HIPFILE_CHUNK_SIZE=$c HIPFILE_STAGING_DEPTH=$d -- $hot --baselines copy
    done
fi
if want ceiling; then
    # What the host can do: raw parallel pread at 4/8/16 threads into pinned memory, and pread
    # and DMA at once (bench/contention).
    for t in 4 8 16; do
        run "raw pread t=$t (hipfile t=$t callers)" -- --file "$file" --file-size "$size" -s "$size" -b 64M -t $t -n 3 --baselines raw,copy
    done
    for t in 4 8 16; do
        "$build/bench/contention" "$file" $t 2 1.0 2>&1 | sed "s/^/    /" | tee -a "$sweep"
    done
fi
if want iops; then
    for spec in 4k:1:64M 4k:16:256M 64k:1:1G 64k:16:4G; do
        b=${spec%%:*} rest=${spec#*:} t=${rest%%:*} s=${rest#*:}
        run "random $b t=$t" -- --file "$file" --file-size "$size" -s "$s" -b "$b" -t "$t" -n 3 --random --baselines hand
        run "random $b t=$t registered" -- --file "$file" --file-size "$size" -s "$s" -b "$b" -t "$t" -n 3 --random --register --baselines hand
    done
fi
if want write; then
    w="--file $wfile --file-size $slow --overwrite -w -s $slow -b 64M -t 4 -n 2 --baselines raw"
    for ct in 2M:16 8M:16 16M:16 8M:4 2M:4; do
        c=${ct%:*} t=${ct#*:}
        run "write buffered chunk=$c threads=$t" HIPFILE_CHUNK_SIZE=$c -- $w --buffered --engine-threads $t
    done
    run "write direct" -- $w --direct
    run "write direct chunk=8M" HIPFILE_CHUNK_SIZE=8M -- $w --direct
fi
if want mapped; then
    # Few threads: staged only, or as the read-path tuner chooses among mapped and staged (the
    # mapped path's shape is fixed; the tuner is what is left to compare against staging).
    for t in 1 2 3 4 8; do
        run "hot t=$t staged" HIPFILE_MAPPED_READS=0 -- $hot --engine-threads $t --baselines copy
        run "hot t=$t tuned" -- $hot --engine-threads $t --baselines copy
        run "hot t=$t staged blocking" HIPFILE_MAPPED_READS=0 HIPFILE_WAIT=block -- $hot --engine-threads $t --baselines copy
    done
fi
if want cold; then
    cold="--file $file --file-size $size -s $slow -b 64M -t 4 -n 1 --cold --baselines raw"
    for c in 2M 16M; do
        run "cold direct chunk=$c" HIPFILE_CHUNK_SIZE=$c -- $cold --direct
    done
    run "cold buffered" -- $cold --buffered
fi
rm -f "$file" "$wfile"
echo "sweep done" >> "$sweep"
