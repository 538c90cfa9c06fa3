#!/bin/sh
# SPDX-License-Identifier: MIT
# The figures of record, in one call on the GPU machine (see bench/RESULTS.md):
#   bench/run.sh OUTDIR
# writes OUTDIR/results.json (every hipfile-io run's JSON, in an array), OUTDIR/summary.txt
# (each run's table, then one line per figure), OUTDIR/check.txt (hipfile-check) and
# OUTDIR/timeline.txt (bench/timeline.py on a traced read: where a 1 GiB call idles the link) and
# OUTDIR/first_load.{txt,json} (bench/first_load.py: the first load in fresh processes).
# It configures and builds $BUILD (default build-gpu, platform=nvidia, release) when the tools
# are missing. The engine's set stays near 5 minutes and the first load adds about 3: on a
# device whose commands are limited to 10 minutes, run them apart (FIRST_LOAD=0, then
# FIRST_LOAD=only). Each measurement is 2-3 passes, best and median reported.
# Environment: BUILD, DATA_DIR (default /tmp; needs O_DIRECT, so not /dev/shm), SIZE (default
# 8G), COMMIT (recorded in the summary where the tree has no .git), SMALL (default 1G: the async and verify passes), QUICK=1 (SIZE=1G SMALL=256M, a smoke
# run), PLATFORM (default nvidia), SLOW_REPS (default 2: passes of the write figures), COLD_REPS
# (default 3: passes of the cold-read figures), FIRST_LOAD (default 1; 0 leaves out the
# first-load figures, "only" runs them alone: about 3 minutes, more the first time the 7.4 GB
# checkpoint is made in DATA_DIR), PASSES (default 3: fresh processes per loader), SERVING
# (default 0; "only" runs bench/serving_load.py alone into OUTDIR/serving.{txt,json}: the
# serving-shaped loads of issue 41, several minutes, more the first time its model folder is
# made in DATA_DIR).
set -u
out=${1:?usage: bench/run.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-gpu}
data_dir=${DATA_DIR:-/tmp}
size=${SIZE:-8G}
small=${SMALL:-1G}
[ "${QUICK:-0}" = 1 ] && size=1G small=256M
platform=${PLATFORM:-nvidia}
read_file=$data_dir/hipfile-bench-read.dat
write_file=$data_dir/hipfile-bench-write.dat
io=$build/tools/hipfile-io

if [ ! -x "$io" ]; then
    meson setup "$build" "$here" -Dplatform="$platform" --buildtype=release -Dtests=false -Dexamples=false \
        > "$out/build.log" 2>&1 && ninja -C "$build" >> "$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log"; echo "bench/run.sh: build failed"; exit 1; }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=$out/summary.txt
: > "$summary"
n=0
failures=0
start=$(date +%s)

{
    echo "bench/run.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "unknown (no .git; set COMMIT)")}$(git -C "$here" rev-parse -q HEAD > /dev/null 2>&1 && ! git -C "$here" diff --quiet -- tools bench lib include 2>/dev/null && echo ' (dirty)')"
    echo "host: $(uname -n) $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)"
    command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
    echo "data: $read_file, $write_file ($size)"
} >> "$summary"

# The first load in fresh processes (bench/first_load.py), after the engine's figures:
# safetensors, the Python binding and hipfile-load, each in new processes; first against later
# loads; the phases of a first load. Needs PyTorch, safetensors and the binding in $BUILD/python;
# said and left out otherwise.
first_load_figures() {
    if PYTHONPATH=$build/python python3 -c "import torch, safetensors, hipfile" > /dev/null 2>&1; then
        PYTHONPATH=$build/python timeout 500 python3 "$here/bench/first_load.py" --load "$build/tools/hipfile-load" \
            --dir "$data_dir" --passes "${PASSES:-3}" --out "$out" > "$out/first_load.txt" 2>&1
        rc=$?
        [ $rc -eq 0 ] || failures=$((failures + 1))
        { echo "== first load (bench/first_load.py, exit $rc)"; cat "$out/first_load.txt"; echo; } >> "$summary"
    else
        echo "== first load: left out (python3 cannot import torch, safetensors and $build/python's hipfile)" >> "$summary"
    fi
}

# Serving-shaped loads (bench/serving_load.py): hipfile.safetensors.load_file against
# safetensors', load_model against from_pretrained, a fill in place, tensor-parallel ranks.
# Needs PyTorch and the binding; the parts needing safetensors or transformers say so and skip.
serving_figures() {
    if PYTHONPATH=$build/python python3 -c "import torch, hipfile" > /dev/null 2>&1; then
        PYTHONPATH=$build/python timeout 590 python3 "$here/bench/serving_load.py" --dir "$data_dir" \
            --json "$out/serving.json" > "$out/serving.txt" 2>&1
        rc=$?
        [ $rc -eq 0 ] || failures=$((failures + 1))
        { echo "== serving-shaped loads (bench/serving_load.py, exit $rc)"; cat "$out/serving.txt"; echo; } >> "$summary"
    else
        echo "== serving-shaped loads: left out (python3 cannot import torch and $build/python's hipfile)" >> "$summary"
    fi
}

if [ "${SERVING:-0}" = only ]; then
    serving_figures
    cat "$summary"
    exit $failures
fi

first_load=${FIRST_LOAD:-1}
if [ "$first_load" = only ]; then
    first_load_figures
    cat "$summary"
    exit $failures
fi

"$build/tools/hipfile-check" "$data_dir" > "$out/check.txt" 2>&1
echo "hipfile-check $data_dir: exit $? ($(tail -1 "$out/check.txt"))" >> "$summary"

# figure NAME ARGS...: one hipfile-io run; its table goes to the summary, its JSON to results.json.
figure() {
    name=$1
    shift
    n=$((n + 1))
    json=$tmp/$(printf %02d $n).json
    echo "== $name: hipfile-io $*" | tee -a "$summary"
    timeout 240 "$io" "$@" --json "$json" > "$tmp/table.txt" 2> "$tmp/err.txt"
    rc=$?
    cat "$tmp/table.txt" >> "$summary"
    if [ $rc -ne 0 ]; then
        failures=$((failures + 1))
        echo "FAILED (exit $rc): $(tail -3 "$tmp/err.txt")" | tee -a "$summary"
        rm -f "$json"
    else
        # Name the run inside its JSON, so results.json can be read without this script.
        sed -i "1s/^{/{\n  \"figure\": \"$name\",/" "$json"
    fi
    echo >> "$summary"
}

common="--file $read_file --file-size $size"
# The data file is written first and flushed: writeback of the fresh dirty pages during the first
# figure slowed it (see bench/HISTORY.md, "What changed to get here (this session)").
"$io" $common --create --overwrite -s 64M -b 64M -n 1 --baselines none > "$tmp/create.txt" 2>&1 ||
    { cat "$tmp/create.txt"; exit 1; }
sync
# 1. Page-cache-hot 8 GiB sequential read into device memory at the library's default settings,
#    against the pinned copy ceiling and the naive path (and raw pread with the same thread):
#    eight 1 GiB calls, then one 8 GiB call.
figure read-hot-default $common -s "$size" -b 1G -t 1 -n 5
figure read-hot-one-call $common -s "$size" -b "$size" -t 1 -n 3 --baselines copy
#    The same eight calls from a client fd opened with O_DIRECT (what the hipFile guide and
#    hipfile::File::open do): the page-cache-aware direct path serves the cached chunks.
figure read-hot-direct $common -s "$size" -b 1G -t 1 -n 3 --direct --baselines copy
# 2. The same at 1/2/3/4/8/16 engine threads (ceiling re-measured each run, no slow baselines).
for t in 1 2 3 4 8 16; do
    figure "read-hot-engine$t" $common -s "$size" -b 1G -t 1 -n 3 --engine-threads "$t" --baselines copy
done
# 3. What the host can feed: raw parallel pread at 16 threads into pinned memory (hipFile with
#    16 calling threads alongside), and pread and DMA at once (bench/contention).
# Where a 1 GiB call leaves the link idle (HIPFILE_TRACE_FILE; the trace's events cost a few
# percent, so this run is not a figure).
if command -v python3 > /dev/null; then
    HIPFILE_TRACE_FILE=$tmp/trace.csv "$io" $common -s "$size" -b 1G -t 1 -n 2 --baselines none > /dev/null 2>&1 &&
        python3 "$here/bench/timeline.py" "$tmp/trace.csv" --min-size 1073741824 > "$out/timeline.txt" 2>&1
    { echo "== timeline of 1 GiB calls (HIPFILE_TRACE_FILE, bench/timeline.py)"; cat "$out/timeline.txt"; echo; } >> "$summary"
fi
figure read-hot-16-callers $common -s "$size" -b 64M -t 16 -n 3 --baselines raw,copy
if [ -x "$build/bench/contention" ]; then
    for t in 4 8 16; do "$build/bench/contention" "$read_file" "$t" 4 1.0; done > "$out/contention.txt" 2>&1
    { echo "== contention (bench/contention FILE THREADS 4 1.0)"; cat "$out/contention.txt"; echo; } >> "$summary"
fi
# What a copy costs the link: 1 GiB in 1-8 MiB pieces over 1-16 streams against one copy. A staged
# read copies chunk by chunk, so its chunk's ratio here caps it (bench/HISTORY.md, "What a copy costs").
if [ -x "$build/bench/copy_streams" ]; then
    "$build/bench/copy_streams" 3 > "$out/copy_streams.txt" 2>&1
    { echo "== copy_streams (bench/copy_streams 3)"; cat "$out/copy_streams.txt"; echo; } >> "$summary"
fi
# 4. Small random reads (hot) against pread + hipMemcpy by hand with the same threads: IOPS.
# 65536 reads per pass, 5 passes: with fewer and shorter passes the 4 KiB ratio swung between runs
# of one commit (see bench/HISTORY.md, "The three figures that moved between runs").
figure read-rand-4k-t1 $common -s 256M -b 4k -t 1 -n 5 --random --baselines hand
figure read-rand-4k-t16 $common -s 256M -b 4k -t 16 -n 3 --random --baselines hand
figure read-rand-64k-t1 $common -s 1G -b 64k -t 1 -n 3 --random --baselines hand
figure read-rand-64k-t16 $common -s 4G -b 64k -t 16 -n 3 --random --baselines hand
# 5. Cold reads, O_DIRECT and buffered, against raw parallel pread of the same disk and one
#    sequential buffered reader (the stream baseline): the target is the better of the two.
slow=${SLOW_REPS:-2}  # disk-bound passes: each costs seconds per GiB
# The virtual disk's rate drifts between passes (see bench/HISTORY.md, "Session of 2026-12-02,
# day"); three alternating passes each.
cold=${COLD_REPS:-3}
figure read-cold-direct $common -s "$size" -b 64M -t 4 -n "$cold" --cold --direct --baselines copy,raw,stream
figure read-cold-buffered $common -s "$size" -b 64M -t 4 -n "$cold" --cold --buffered --baselines copy,raw,stream
#    Half-resident O_DIRECT: the first half of every 1 GiB call cached, the rest on the disk,
#    against the same calls on each half alone (want time <= 1.1x their sum: vs parts >= 0.91).
figure read-half-direct $common -s "$size" -b 1G -t 1 -n "$cold" --direct --resident 0.5 --baselines copy,parts
# 6. Writes from device memory against raw pwrite from pinned host memory (own file: writes
#    replace the pattern).
wcommon="--file $write_file --file-size $size --overwrite"
figure write-buffered $wcommon -w -s "$size" -b 64M -t 4 -n "$slow" --buffered --baselines copy,raw
figure write-direct $wcommon -w -s "$size" -b 64M -t 4 -n "$slow" --direct --baselines copy,raw
# 7. 64 async 16 MiB reads on 4 streams against the same reads sync, serially.
figure read-async $common -s "$small" -b 16M -t 1 -n 3 --api async --streams 4 --baselines copy,serial
# 8. 128-entry batches of 64 KiB random reads against a loop of sync reads (hot).
figure read-batch $common -s "$small" -b 64k -t 1 -n 3 --random --api batch --batch 128 --baselines serial
# Correctness of the measured paths on this GPU: every byte checked (untimed).
figure verify-read $common -s "$small" -b 16M -t 4 -n 1 --register --verify --baselines none
figure verify-write $wcommon --create -w -s "$small" -b 16M -t 4 -n 1 --direct --verify --baselines none

if [ "$first_load" != 0 ]; then first_load_figures; fi

sh "$here/bench/json_array.sh" "$tmp" > "$out/results.json"

# One line per figure: hipfile best GB/s, its CPU seconds per GB (median pass) and the best-pass
# ratios, taken from the JSON.
{
    echo "== figures (best of passes; GB/s = 1e9 B/s)"
    printf '%-22s %10s %10s %9s %10s %10s %10s %10s %10s %10s %10s\n' figure "GB/s" "kIOPS" "CPU s/GB" "vs copy" "vs raw" "vs naive" "vs serial" "vs hand" "vs stream" "vs parts"
    for f in "$tmp"/[0-9]*.json; do
        [ -e "$f" ] || continue
        awk '
            /"figure":/ { gsub(/[",]/, "", $2); fig = $2 }
            /"gbps_best":/ && gb == "" { gsub(/,/, "", $2); gb = $2 }
            /"iops_best":/ && iops == "" { gsub(/,/, "", $2); iops = $2 }
            /"cpu_s_per_gb":/ && cpu == "" { gsub(/,/, "", $2); cpu = $2 }
            /"vs_[a-z_]*": \{/ { key = $1; gsub(/[":]/, "", key) }
            /"best":/ && key != "" { gsub(/,/, "", $2); r[key] = $2; key = "" }
            function show(k) { return r[k] != "" ? sprintf("%.3f", r[k]) : "-" }
            END {
                printf "%-22s %10.2f %10.1f %9s %10s %10s %10s %10s %10s %10s %10s\n", fig, gb, iops / 1000,
                    cpu ~ /^[0-9.]+$/ ? sprintf("%.3f", cpu) : "-", show("vs_pinned_copy"),
                    show("vs_raw"), show("vs_naive"), show("vs_sync_serial"), show("vs_by_hand"), show("vs_stream"), show("vs_parts")
            }' "$f"
    done
    echo "runs: $n, failed: $failures, $(($(date +%s) - start)) s"
} >> "$summary"
sed -n '/^== figures/,$p' "$summary"
rm -f "$read_file" "$write_file"
[ $failures -eq 0 ]
