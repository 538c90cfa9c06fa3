#!/bin/sh
# SPDX-License-Identifier: MIT
# io_corrupt.sh HIPFILE_IO WORKDIR: hipfile-io --verify catches one changed byte of its data
# file. Before a verified read run the tool samples the file (its first and last 4 KiB) and
# refuses a file without the pattern; a byte changed there is caught by that check. A byte
# changed anywhere else passes the check, and the verify pass, which compares every byte of
# every request, must catch it and name its file offset, in each API.
# usage: io_corrupt.sh HIPFILE_IO WORKDIR
set -u
io=$1
dir=$2/io-corrupt.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
file=$dir/data
size=8388608
common="--file $file --size 8M --io-size 1M --reps 1 --baselines none --overwrite"  # the test's own file
fail=0

# flip OFFSET: inverts the byte at OFFSET in place (the file keeps its size).
flip() {
    value=$(dd if="$file" bs=1 skip="$1" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    printf "\\$(printf %o $((255 - value)))" | dd of="$file" bs=1 seek="$1" count=1 conv=notrunc 2>/dev/null
}

# expect_error LABEL PATTERN ARGS...: hipfile-io ARGS exits 1 with PATTERN on stderr.
expect_error() {
    label=$1 pattern=$2
    shift 2
    "$io" $common "$@" > "$dir/out" 2> "$dir/err"; rc=$?
    if [ "$rc" -ne 1 ]; then
        echo "FAIL: $label: exit $rc, want 1"; cat "$dir/out" "$dir/err"; fail=1
    elif ! grep -q -- "$pattern" "$dir/err"; then
        echo "FAIL: $label: stderr does not match '$pattern':"; cat "$dir/err"; fail=1
    else
        echo "ok: $label"
    fi
}

"$io" $common --create --verify > "$dir/out" 2>&1 || { echo "FAIL: clean run"; cat "$dir/out"; exit 1; }
[ "$(stat -c %s "$file")" -eq "$size" ] || { echo "FAIL: the data file is not $size bytes"; exit 1; }

# Inside the sampled head: the pre-check refuses the file.
flip 100
expect_error "a byte changed in the first 4 KiB" "does not hold hipfile-io's pattern" --verify
flip 100
# Inside the sampled tail, likewise.
flip $((size - 1))
expect_error "the last byte changed" "does not hold hipfile-io's pattern" --verify
flip $((size - 1))

# Outside the samples: 5 MiB + 12345 lies in the sixth 1 MiB request.
bad=$((5 * 1048576 + 12345))
flip $bad
# Without --verify nothing looks at the bytes, so the run succeeds: the verify pass is the check.
"$io" $common > "$dir/out" 2>&1 || { echo "FAIL: an unverified run failed"; cat "$dir/out"; fail=1; }
message="verification failed: byte at file offset $bad differs"
expect_error "a byte changed mid-file, sync, device memory" "$message" --verify
expect_error "a byte changed mid-file, sync, pinned memory, registered" "$message" --verify --mem pinned --register
expect_error "a byte changed mid-file, sync, 3 threads, 64 KiB requests" "$message" --verify --threads 3 --io-size 64k
expect_error "a byte changed mid-file, async" "$message" --verify --api async --streams 2
expect_error "a byte changed mid-file, batch" "$message" --verify --api batch --batch 4
flip $bad
"$io" $common --verify > "$dir/out" 2>&1 || { echo "FAIL: the restored file fails to verify"; cat "$dir/out"; fail=1; }
exit $fail
