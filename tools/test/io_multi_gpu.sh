#!/bin/sh
# SPDX-License-Identifier: MIT
# io_multi_gpu.sh HIPFILE_IO JSON_CHECK WORKDIR: hipfile-io over 2, 3 and 4 GPUs (on platform
# cpu, HIPCPU_DEVICE_COUNT emulates them; elsewhere the machine needs 4, or the test is SKIP):
# hot reads and writes with one shared file and with --file-per-device pass --verify, each
# GPU's part lands in its own file (PATH.N, the part's size, from offset 0), the JSON's
# per-device byte counts are the plan's parts and sum to the total, the copy ceiling is the
# aggregate of all GPUs copying at once, and failures name the file that failed.
set -u
io=$1
json_check=$2
dir=$3/io-multi-gpu.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
file=$dir/data
mib=1048576
total=$((8 * mib))
fail=0
export HIPCPU_DEVICE_COUNT=4 HIPCPU_DEVICE_MEMORY_MB=256
common="--size 8M --io-size 1M --reps 1 --overwrite"  # the files are the test's own

# Fewer than 4 GPUs on a GPU platform: nothing here can run.
"$io" --multi-gpu --file "$dir/probe" -s 4k -n 1 --baselines none --json "$dir/probe.json" > /dev/null 2>&1 ||
    { echo "hipfile-io --multi-gpu failed"; exit 1; }
"$json_check" "$dir/probe.json" config.devices.3 2> /dev/null || { echo "SKIP: fewer than 4 GPUs"; exit 77; }
rm -f "$dir/probe" "$dir/probe.json"

bad() { echo "FAIL: $*"; fail=1; }

# run LABEL ARGS...: hipfile-io ARGS --verify passes; its JSON is $dir/out.json.
run() {
    label=$1
    shift
    if ! "$io" $common "$@" --verify --json "$dir/out.json" > "$dir/out.txt" 2>&1; then
        bad "$label: hipfile-io $* failed:"; cat "$dir/out.txt"; return 1
    fi
    grep -q '^verify: passed' "$dir/out.txt" || { bad "$label: no 'verify: passed'"; return 1; }
}

# parts LABEL MEASUREMENT BYTES...: the measurement's per_device entries carry these byte
# counts in device order, and no more; their sum is the measurement's bytes_per_pass.
parts() {
    label=$1 m=$2
    shift 2
    i=0 sum=0
    for want in "$@"; do
        got=$("$json_check" "$dir/out.json" "@results.$m.per_device.$i.bytes_per_pass") ||
            { bad "$label: no results.$m.per_device.$i"; return; }
        [ "$got" = "$want" ] || bad "$label: GPU slot $i of $m moved $got bytes, want $want"
        "$json_check" "$dir/out.json" "results.$m.per_device.$i.gbps_best" 2> /dev/null ||
            bad "$label: results.$m.per_device.$i has no gbps_best"
        sum=$((sum + got)) i=$((i + 1))
    done
    "$json_check" "$dir/out.json" "!results.$m.per_device.$i" 2> /dev/null || bad "$label: $m has more than $i GPUs"
    all=$("$json_check" "$dir/out.json" "@results.$m.bytes_per_pass")
    [ "$sum" = "$all" ] || bad "$label: the GPUs' bytes of $m sum to $sum, bytes_per_pass is $all"
}

# files LABEL SIZE DEVICES...: $file.N exists with SIZE bytes for each GPU N, and $file does not.
files() {
    label=$1 size=$2
    shift 2
    for d in "$@"; do
        [ -f "$file.$d" ] || { bad "$label: $file.$d was not created"; continue; }
        [ "$(stat -c %s "$file.$d")" = "$size" ] || bad "$label: $file.$d has $(stat -c %s "$file.$d") bytes, want $size"
    done
    [ -e "$file" ] && bad "$label: --file-per-device created the shared file $file"
}

json() { "$json_check" "$dir/out.json" "$@" || bad "json-check $*"; }

# One shared file, 2 and 4 GPUs: disjoint halves and quarters of it.
for devices in 0,1 0,1,2,3; do
    n=$(echo "$devices" | tr ',' '\n' | wc -l)
    label="shared file, GPUs $devices"
    if run "$label read" --file "$file" --devices "$devices" --baselines copy,raw; then
        json config.file_per_device=false config.files.0="$file" '!config.files.1' config.devices.$((n - 1))
        json results.pinned_h2d.concurrent_devices="$n" results.pinned_h2d.bytes_per_pass=$((n * total))
        if [ "$n" = 2 ]; then set -- $((4 * mib)) $((4 * mib)); else set -- $((2 * mib)) $((2 * mib)) $((2 * mib)) $((2 * mib)); fi
        parts "$label read" hipfile "$@"
        parts "$label read" raw "$@"
        grep -q "per GPU (pinned_h2d, all at once)" "$dir/out.txt" || bad "$label: the table has no per-GPU ceiling"
    fi
    run "$label write" --file "$dir/shared-w" --devices "$devices" --write --baselines none &&
        parts "$label write" hipfile "$@"
done
[ "$fail" = 0 ] && echo "ok: one shared file, 2 and 4 GPUs, reads and writes"

# The copy ceiling of several GPUs is one pass of all of them at once: the aggregate is every
# GPU's bytes over the slowest GPU's time, not the sum of rates of GPUs copying one at a time.
"$io" --file "$file" $common --devices 0,1,2,3 --baselines copy --json "$dir/out.json" > "$dir/out.txt" 2>&1 ||
    { bad "copy ceiling run failed"; cat "$dir/out.txt"; }
agg=$("$json_check" "$dir/out.json" @results.pinned_h2d.gbps_best)
slowest=$(for i in 0 1 2 3; do "$json_check" "$dir/out.json" "@results.pinned_h2d.per_device.$i.gbps_best"; done | sort -g | head -1)
awk -v a="$agg" -v s="$slowest" 'BEGIN { d = a - 4 * s; exit !(d < 1e-4 * a && -d < 1e-4 * a) }' ||
    bad "pinned_h2d of 4 GPUs is $agg GB/s, not 4 x the slowest GPU's $slowest"
[ "$fail" = 0 ] && echo "ok: the copy ceiling of 4 GPUs is their aggregate at once ($agg GB/s)"

# A file per GPU: PATH.0 ... PATH.N-1, each exactly its GPU's part, read and written from offset 0.
rm -f "$file"
for devices in 0,1 0,1,2,3; do
    rm -f "$file".*
    n=$(echo "$devices" | tr ',' '\n' | wc -l)
    label="file per GPU, GPUs $devices"
    if [ "$n" = 2 ]; then set -- 0 1; else set -- 0 1 2 3; fi
    if run "$label read" --file "$file" --devices "$devices" --file-per-device --baselines copy,raw,stream; then
        files "$label" $((total / n)) "$@"
        json config.file_per_device=true config.file_size=$((total / n)) config.files.0="$file.0" \
            config.files.$((n - 1))="$file.$((n - 1))" "!config.files.$n" results.pinned_h2d.concurrent_devices="$n"
        json results.stream.bytes_per_pass=$total
        [ "$n" = 2 ] && parts "$label read" hipfile $((4 * mib)) $((4 * mib))
        [ "$n" = 4 ] && parts "$label read" raw $((2 * mib)) $((2 * mib)) $((2 * mib)) $((2 * mib))
    fi
    rm -f "$file".*
    run "$label write" --file "$file" --devices "$devices" --file-per-device --write --baselines raw &&
        files "$label write" $((total / n)) "$@"
    # The write's verify pass left the pattern, so a verified read of the same files follows.
    run "$label read after write" --file "$file" --devices "$devices" --file-per-device --baselines none
done
[ "$fail" = 0 ] && echo "ok: a file per GPU, 2 and 4 GPUs, reads and writes"

# Uneven parts: 8 requests over 3 GPUs are 2, 3 and 3; each file holds the largest part (3 MiB).
rm -f "$file".*
if run "3 GPUs" --file "$file" --devices 1,2,3 --file-per-device --baselines none; then
    files "3 GPUs" $((3 * mib)) 1 2 3
    [ -e "$file.0" ] && bad "3 GPUs: GPU 0 is not used but $file.0 was created"
    parts "3 GPUs" hipfile $((2 * mib)) $((3 * mib)) $((3 * mib))
fi
# --multi-gpu: every GPU, cold and O_DIRECT where the file system allows it (random: offsets
# over each GPU's own 4 MiB file); async.
rm -f "$file".*
run "--multi-gpu" --file "$file" --multi-gpu --file-per-device --cold --threads 2 --baselines none &&
    files "--multi-gpu" $((2 * mib)) 0 1 2 3
run "random" --file "$file" --multi-gpu --file-per-device --random --io-size 64k --file-size 4M --baselines none &&
    files "random" $((4 * mib)) 0 1 2 3 && parts "random" hipfile $((2 * mib)) $((2 * mib)) $((2 * mib)) $((2 * mib))
run "async" --file "$file" --devices 0,1 --file-per-device --api async --streams 2 --file-size 4M --baselines none
[ "$fail" = 0 ] && echo "ok: uneven parts, --multi-gpu, cold, random and async"

# expect_error LABEL STATUS MESSAGE ARGS...: hipfile-io ARGS exits STATUS, stderr has MESSAGE.
expect_error() {
    label=$1 status=$2 message=$3
    shift 3
    "$io" $common "$@" > "$dir/out.txt" 2> "$dir/err.txt"; rc=$?
    if [ "$rc" != "$status" ]; then
        bad "$label: exit $rc, want $status"; cat "$dir/err.txt"
    elif ! grep -qF -- "$message" "$dir/err.txt"; then
        bad "$label: stderr does not say '$message':"; cat "$dir/err.txt"
    fi
}
# A GPU's file that cannot be created, that lost its pattern, or that holds one wrong byte:
# each message names that GPU's file.
expect_error "uncreatable file" 1 "cannot create $dir/none/data.0: No such file or directory" \
    --file "$dir/none/data" --devices 0,1 --file-per-device
[ -e "$dir/none" ] && bad "uncreatable file: the directory appeared"
printf 'not the pattern' | dd of="$file.2" conv=notrunc 2> /dev/null
expect_error "file without the pattern" 1 "$file.2 does not hold hipfile-io's pattern" \
    --file "$file" --multi-gpu --file-per-device --verify --baselines none
"$io" $common --file "$file" --multi-gpu --file-per-device --create --baselines none > /dev/null 2>&1 ||
    bad "--create of the files failed"
# 1 MiB + 5 of GPU 3's file: in its second request, outside the sampled head and tail.
printf 'X' | dd of="$file.3" bs=1 seek=$((mib + 5)) conv=notrunc 2> /dev/null
expect_error "one wrong byte" 1 "verification failed: byte at file offset $((mib + 5)) differs (request of 1048576 bytes at offset 1048576 of $file.3" \
    --file "$file" --multi-gpu --file-per-device --verify --baselines none
# Sizes that depend on the number of GPUs --multi-gpu finds are refused after the runtime
# answers, still as usage errors, before any file is made.
rm -f "$file".*
expect_error "--multi-gpu, files too small" 2 \
    "hipfile-io: --file-size is smaller than one GPU's part of --size (2097152 bytes) for a sequential pass with --file-per-device" \
    --file "$file" --multi-gpu --file-per-device --file-size 1M
for d in 0 1 2 3; do [ -e "$file.$d" ] && bad "a usage error created $file.$d"; done
[ "$fail" = 0 ] && echo "ok: errors name the GPU's file"
exit $fail
