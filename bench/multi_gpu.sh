#!/bin/sh
# SPDX-License-Identifier: MIT
# Scaling over the GPUs of one host, in one call on the GPU machine:
#   bench/multi_gpu.sh OUTDIR
# For N = 1, 2, 4 and 8 GPUs (those the runtime reports; on platform cpu HIPCPU_DEVICE_COUNT
# emulates them) it measures with hipfile-io, the GPUs 0..N-1 all at once and --size the
# pass's total over them: page-cache-hot sequential reads into device memory from one shared
# file and from one file per GPU (--file-per-device), the same reads cold, and buffered writes
# (shared and per GPU); before them the host's own limit, raw parallel pread (and pwrite) into
# pinned memory at about one thread per CPU; and with CKPT a safetensors checkpoint loaded over
# the N GPUs by hipfile-load --devices. Each figure is printed as GB/s against the pinned
# copy ceiling of the same run (all N GPUs copying at once), against N x the 1-GPU figure of
# this run, against the host limit, and against raw parallel pread/pwrite of the same run
# where it was taken.
# Writes OUTDIR/results.json (every run's JSON, named by its "figure"), OUTDIR/summary.txt
# (every table, then the figure lines) and prints the figure lines.
# Environment: BUILD (default build-gpu; configured and built, release, when its hipfile-io is
# missing), PLATFORM (default nvidia), DATA_DIR (default /tmp; the files take about 2 x SIZE
# for reads and as much for writes), SIZE (default 8G), IO_SIZE (default 256M, at most
# SIZE / 8), REPS (default 3: hot passes), SLOW_REPS (default 2: cold and write passes),
# COUNTS (default "1 2 4 8"), CKPT (checkpoint paths for hipfile-load; without it the load is
# skipped), COMMIT (recorded where the tree has no .git).
set -u
out=${1:?usage: bench/multi_gpu.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-gpu}
platform=${PLATFORM:-nvidia}
data_dir=${DATA_DIR:-/tmp}
size=${SIZE:-8G}
reps=${REPS:-3}
slow=${SLOW_REPS:-2}
counts=${COUNTS:-1 2 4 8}
io=$build/tools/hipfile-io
load=$build/tools/hipfile-load
read_file=$data_dir/hipfile-mg-read.dat
write_file=$data_dir/hipfile-mg-write.dat

if [ ! -x "$io" ]; then
    meson setup "$build" "$here" -Dplatform="$platform" --buildtype=release -Dtests=false -Dexamples=false \
        > "$out/build.log" 2>&1 && ninja -C "$build" >> "$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log"; echo "bench/multi_gpu.sh: build failed"; exit 1; }
fi

# bytes SIZE: a size with hipfile-io's suffixes (k, M, G, T, any case, optional i and B) in bytes.
bytes() {
    echo "$1" | awk '{
        n = $0; sub(/[iI]?[bB]?$/, "", n); if (n !~ /[kKmMgGtT]$/) n = n "";
        s = substr(n, length(n)); m = 1
        if (s ~ /[kK]/) m = 2^10; else if (s ~ /[mM]/) m = 2^20; else if (s ~ /[gG]/) m = 2^30; else if (s ~ /[tT]/) m = 2^40
        if (m > 1) n = substr(n, 1, length(n) - 1)
        if (n !~ /^[0-9]+$/) exit 1
        printf "%.0f\n", n * m }'
}
total=$(bytes "$size") || { echo "bench/multi_gpu.sh: SIZE=$size is not a size"; exit 2; }
io_size=$(bytes "${IO_SIZE:-256M}") || { echo "bench/multi_gpu.sh: IO_SIZE is not a size"; exit 2; }
[ "$io_size" -gt $((total / 8)) ] && io_size=$((total / 8))
[ "$io_size" -ge 4096 ] || { echo "bench/multi_gpu.sh: SIZE=$size is too small (at least 32k)"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=$out/summary.txt
lines=$tmp/lines.txt
: > "$summary"
: > "$lines"
n=0
failures=0
start=$(date +%s)

# get FILE MEASUREMENT: the best-pass GB/s of results.MEASUREMENT (JsonWriter's layout: a
# measurement's own gbps_best comes before its per_device entries); "-" when absent.
get() {
    awk -v m="    \"$2\": {" 'index($0, m) == 1 { on = 1 } on && /"gbps_best":/ { gsub(/,/, "", $2); print $2; found = 1; exit }
        END { if (!found) print "-" }' "$1" 2> /dev/null || echo -
}
# div A B: A / B with 3 decimals, "-" when either is missing or B is 0.
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.3f\n", a / b }'; }

# The GPUs the runtime reports (a run over all of them).
"$io" --multi-gpu --file "$tmp/probe" -s 4k -n 1 --baselines none --json "$tmp/probe.json" > "$tmp/probe.txt" 2>&1 ||
    { cat "$tmp/probe.txt"; echo "bench/multi_gpu.sh: hipfile-io finds no GPU"; exit 1; }
gpus=$(sed -n '/"devices": \[/,/\]/p' "$tmp/probe.json" | grep -c '^ *[0-9]')
cpus=$(nproc)
{
    echo "bench/multi_gpu.sh $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "unknown (no .git; set COMMIT)")}"
    echo "host: $(uname -n) $(uname -r), $cpus CPUs, $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo), $gpus GPUs"
    command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
    echo "data: $read_file, $write_file ($size per pass, $io_size-byte requests)"
} >> "$summary"

# figure NAME ARGS...: one hipfile-io run; its table goes to the summary, its JSON to
# $tmp/NN.json (named inside by its figure); $json is that file, or empty when the run failed.
figure() {
    name=$1
    shift
    n=$((n + 1))
    json=$tmp/$(printf %02d $n).json
    echo "== $name: $*" >> "$summary"
    timeout 300 "$@" --json "$json" > "$tmp/table.txt" 2> "$tmp/err.txt"
    rc=$?
    cat "$tmp/table.txt" >> "$summary"
    if [ $rc -ne 0 ]; then
        failures=$((failures + 1))
        echo "$name FAILED (exit $rc): $(tail -3 "$tmp/err.txt")" | tee -a "$summary" >> "$lines"
        rm -f "$json"
        json=
    else
        sed -i "1s/^{/{\n  \"figure\": \"$name\",/" "$json"
    fi
    echo >> "$summary"
}

# rate GBPS: with 2 decimals, "-" when missing.
rate() { awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.2f\n", a }'; }
# line NAME N GBPS CEILING BASE HOST RAW: one figure line; BASE is the 1-GPU figure of the kind.
line() {
    scaled=-
    [ "$5" != - ] && scaled=$(awk -v b="$5" -v n="$2" 'BEGIN { print b * n }')
    printf '%-24s %3s %9s %9s %8s %8s %8s %8s\n' "$1" "$2" "$(rate "$3")" "$(rate "$4")" "$(div "$3" "$4")" \
        "$(div "$3" "$scaled")" "$(div "$3" "$6")" "$(div "$3" "$7")" >> "$lines"
}

list() { seq -s, 0 $(($1 - 1)); }

# The data: one shared file of SIZE, and the files of one per GPU, each GPU's part (SIZE / N)
# for the largest N that uses it (PATH.0 SIZE, PATH.1 SIZE / 2, ...), written once and flushed
# before anything is timed (writeback of fresh pages during a figure costs it, bench/run.sh).
# --overwrite: these files are the script's own, written again by later figures and runs.
common="-b $io_size --overwrite"
"$io" --file "$read_file" --file-size "$total" -s "$io_size" $common -n 1 --baselines none > "$tmp/create.txt" 2>&1 ||
    { cat "$tmp/create.txt"; exit 1; }
used=""
for count in $counts; do
    [ "$count" -le "$gpus" ] || continue
    used="$used $count"
    "$io" --file "$read_file" --file-per-device --devices "$(list "$count")" --file-size $((total / count)) \
        -s "$io_size" $common -n 1 --baselines none > "$tmp/create.txt" 2>&1 || { cat "$tmp/create.txt"; exit 1; }
done
sync
[ -n "$used" ] || { echo "bench/multi_gpu.sh: none of COUNTS ($counts) fits $gpus GPUs"; exit 1; }
most=${used##* }

# The host limit: raw parallel pread (pwrite) into pinned memory with about one thread per
# CPU, the threads spread over all GPUs used (--threads per GPU x GPUs), page cache hot.
threads=$(( (cpus + most - 1) / most ))
figure host-limit-read "$io" --file "$read_file" --devices "$(list "$most")" -s "$total" $common -t "$threads" \
    -n "$reps" --baselines raw
host_read=-
[ -n "$json" ] && host_read=$(get "$json" raw)
figure host-limit-write "$io" --file "$write_file" --devices "$(list "$most")" -w -s "$total" $common -t "$threads" \
    -n "$slow" --baselines raw
host_write=-
[ -n "$json" ] && host_write=$(get "$json" raw)

# measure KIND N HOST CEILING-KEY ARGS...: one figure of KIND over N GPUs, and its line; the
# 1-GPU figure of each KIND is remembered as the base of the larger N.
measure() {
    kind=$1 count=$2 host=$3 ceiling_key=$4
    shift 4
    figure "$kind-$count" "$io" --devices "$(list "$count")" -s "$total" $common "$@"
    gb=- ceiling=- raw=-
    if [ -n "$json" ]; then
        gb=$(get "$json" hipfile) ceiling=$(get "$json" "$ceiling_key") raw=$(get "$json" raw)
    fi
    var=base_$(echo "$kind" | tr -c 'a-z0-9\n' '_')
    [ "$count" = 1 ] && eval "$var=\$gb"
    eval "base=\${$var:--}"
    line "$kind" "$count" "$gb" "$ceiling" "$base" "$host" "$raw"
    [ "$kind" = read-hot-shared ] && eval "ceiling_$count=\$ceiling"
}

for count in $used; do
    measure read-hot-shared "$count" "$host_read" pinned_h2d --file "$read_file" -n "$reps" --baselines copy
    measure read-hot-per-gpu "$count" "$host_read" pinned_h2d --file "$read_file" --file-per-device -n "$reps" --baselines copy
    measure read-cold-shared "$count" "$host_read" pinned_h2d --file "$read_file" --cold -t 2 -n "$slow" --baselines copy,raw
    measure read-cold-per-gpu "$count" "$host_read" pinned_h2d --file "$read_file" --file-per-device --cold -t 2 \
        -n "$slow" --baselines copy,raw
    measure write-shared "$count" "$host_write" pinned_d2h --file "$write_file" -w -t 2 -n "$slow" --baselines copy,raw
    measure write-per-gpu "$count" "$host_write" pinned_d2h --file "$write_file" --file-per-device -w -t 2 -n "$slow" \
        --baselines copy,raw
done

# The checkpoint over N GPUs, against the copy ceiling of the read-hot-shared run of the same N
# (hipfile-io's, all GPUs at once) and N x its own 1-GPU load.
if [ -z "${CKPT:-}" ]; then
    echo "safetensors load: skipped (set CKPT=PATH... to load a checkpoint over the GPUs)" | tee -a "$summary" >> "$lines"
elif [ ! -x "$load" ]; then
    echo "safetensors load: skipped ($load was not built: nlohmann-json missing?)" | tee -a "$summary" >> "$lines"
else
    for count in $used; do
        n=$((n + 1))
        json=$tmp/$(printf %02d $n).json
        echo "== load-$count: hipfile-load --devices $(list "$count") -n $reps $CKPT" >> "$summary"
        # shellcheck disable=SC2086 # CKPT may name several shards
        if timeout 300 "$load" --devices "$(list "$count")" -n "$reps" -q --json $CKPT > "$json" 2> "$tmp/err.txt"; then
            sed -i "1s/^{/{\n  \"figure\": \"load-$count\",/" "$json"
            cat "$json" >> "$summary"
            gb=$(awk '/^  "gbps_best":/ { gsub(/,/, "", $2); print $2 }' "$json")
        else
            failures=$((failures + 1))
            echo "load-$count FAILED: $(tail -3 "$tmp/err.txt")" | tee -a "$summary" >> "$lines"
            rm -f "$json"
            gb=-
        fi
        [ "$count" = 1 ] && base_load=$gb
        eval "ceiling=\${ceiling_$count:--}"
        line load "$count" "$gb" "$ceiling" "${base_load:--}" "$host_read" -
    done
fi

sh "$here/bench/json_array.sh" "$tmp" > "$out/results.json"

{
    echo "== figures (best of passes; GB/s = 1e9 B/s; ceiling: pinned copy of the same run, all N GPUs at once)"
    echo "host limit: raw parallel pread $(rate "$host_read") GB/s, pwrite $(rate "$host_write") GB/s ($threads thread(s) per GPU x $most GPUs, page cache hot)"
    printf '%-24s %3s %9s %9s %8s %8s %8s %8s\n' figure N "GB/s" ceiling "vs ceil" "vs Nx1" "vs host" "vs raw"
    cat "$lines"
    echo "runs: $n, failed: $failures, $(($(date +%s) - start)) s"
} >> "$summary"
sed -n '/^== figures/,$p' "$summary"
rm -f "$read_file" "$read_file".* "$write_file" "$write_file".*
[ $failures -eq 0 ]
