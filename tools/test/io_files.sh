#!/bin/sh
# SPDX-License-Identifier: MIT
# io_files.sh IO WORKDIR: hipfile-io's --file must be a regular file (a FIFO would block its
# open, a device's st_size of 0 made the tool write its pattern over the device, a directory
# cannot hold data) and --json FILE never waits on a FIFO that nobody reads: each ends with one
# clear line and exit 1, under timeout(1) so that a regression fails instead of hanging; so do
# a data file larger than the free space and memory that cannot be allocated.
set -u
io=$1
dir=$2/io-files.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0 count=0 skipped=
small="-s 64k -b 64k --reps 1 --baselines none"

# expect PATTERN COMMAND...: exit 1 within 20 s, the last stderr line matches PATTERN.
expect() {
    pattern=$1
    shift
    count=$((count + 1))
    timeout 20 "$@" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    what="$(echo "$*" | sed "s|$dir/||g")"
    [ "$rc" -ne 124 ] || { echo "FAIL: $what: still running after 20 s"; fail=1; return; }
    [ "$rc" -eq 1 ] || { echo "FAIL: $what: exit $rc, want 1"; cat "$dir/err"; fail=1; return; }
    tail -n 1 "$dir/err" | grep -q -- "^hipfile-io: error: $pattern$" ||
        { echo "FAIL: $what: stderr does not end with '$pattern':"; cat "$dir/err"; fail=1; }
}

mkfifo "$dir/fifo"
mkdir "$dir/sub"
expect "--file: $dir/fifo is a FIFO, not a regular file" "$io" $small -f "$dir/fifo"
expect "--file: /dev/null is a character device, not a regular file" "$io" $small -f /dev/null
expect "--file: $dir/sub is a directory, not a regular file" "$io" $small -f "$dir/sub"
[ -p "$dir/fifo" ] || { echo "FAIL: the FIFO is gone"; fail=1; }
# A data file larger than the free space is refused before a byte is written.
expect "--file: $dir/huge would need 1099511627776000000 bytes, and its file system has [0-9]* free" \
    "$io" $small -f "$dir/huge" --file-size 1000000T
[ -e "$dir/huge" ] && { echo "FAIL: the refused data file was created"; fail=1; }
# Memory that cannot be had (the plan of 2^24 requests needs 256 MiB, the address space is held
# to 200 MB) ends with a message and exit 1, not an abort on an uncaught std::bad_alloc.
# Some HIP runtimes (CUDA's) cannot start at all within 200 MB of address space: the case then
# checks nothing, and the program reports SKIP after its other cases.
if timeout 20 sh -c 'ulimit -v 200000 && exec "$@"' sh "$io" -s 16M -b 1 --reps 1 --baselines none -f "$dir/data" 2>&1 |
    grep -q "^hipfile-io: error: no GPU: "; then
    skipped="the HIP runtime does not start within 200 MB of address space (out-of-memory case)"
else
    expect "out of host memory (try a smaller --io-size, --threads or --size)" \
        sh -c 'ulimit -v 200000 && exec "$@"' sh "$io" -s 16M -b 1 --reps 1 --baselines none -f "$dir/data"
fi
expect "cannot write $dir/fifo: a FIFO that no process reads" "$io" $small -f "$dir/data" --json "$dir/fifo"
# --json through a FIFO that is read still works (as --json /dev/stdout into a pipe does).
count=$((count + 1))
timeout 20 "$io" $small -f "$dir/data" --json /dev/stdout 2> "$dir/err" | grep -q '"tool": "hipfile-io"' ||
    { echo "FAIL: --json /dev/stdout into a pipe:"; cat "$dir/err"; fail=1; }

[ "$fail" -eq 0 ] && echo "ok: $count hipfile-io file cases"
[ "$fail" -eq 0 ] && [ -n "$skipped" ] && { echo "SKIP: $skipped"; exit 77; }
exit $fail
