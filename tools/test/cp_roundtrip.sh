#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-cp copies files of awkward sizes (empty, one byte, around a 4 KiB block, whole
# chunks, a few MiB plus a tail) byte for byte, buffered and with O_DIRECT, with the default
# chunk and with chunks much smaller than the file, and fails cleanly on bad input.
# hipfile-cp does not read its copy back (it has no verify option), so cmp is the check here.
# usage: cp_roundtrip.sh HIPFILE_CP WORKDIR
set -eu
cp_tool=$1
dir=$2/cp-roundtrip.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

for size in 0 1 4095 4096 4097 2097152 3145735; do
    head -c "$size" /dev/urandom > "$dir/src.$size"
    "$cp_tool" -q "$dir/src.$size" "$dir/dst.$size"
    cmp "$dir/src.$size" "$dir/dst.$size"
    # A smaller chunk forces several read/write rounds; --buffered covers the fallback path.
    "$cp_tool" -q --buffered --chunk 1M "$dir/src.$size" "$dir/dst2.$size"
    cmp "$dir/src.$size" "$dir/dst2.$size"
    echo "ok: $size bytes"
done

# Chunks far smaller than the file: 5000 is rounded up to 8 KiB, so 3 MiB + 7 takes 385 rounds
# with a 7-byte tail; 4k takes 769. --sync and --progress (stderr is not a terminal) on the way.
"$cp_tool" --chunk 5000 --sync "$dir/src.3145735" "$dir/dst3" 2> "$dir/err"
cmp "$dir/src.3145735" "$dir/dst3"
"$cp_tool" -c 4k --progress --buffered "$dir/src.3145735" "$dir/dst4" 2> "$dir/err"
cmp "$dir/src.3145735" "$dir/dst4"
"$cp_tool" -q -c 4KiB "$dir/src.4097" "$dir/dst5"
cmp "$dir/src.4097" "$dir/dst5"
echo "ok: chunks smaller than the file"

# Overwriting a larger file must leave exactly the source's size, and an empty source an empty file.
head -c 9000 /dev/urandom > "$dir/big"
"$cp_tool" -q "$dir/src.4097" "$dir/big"
cmp "$dir/src.4097" "$dir/big"
head -c 9000 /dev/urandom > "$dir/big"
"$cp_tool" -q "$dir/src.0" "$dir/big"
[ "$(stat -c %s "$dir/big")" -eq 0 ]
echo "ok: overwrite"

# Errors: exit 1 with a message, never a crash; usage errors exit 2 (more in usage_errors.sh).
set +e
"$cp_tool" -q "$dir/missing" "$dir/out" 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] || { echo "missing source: exit $rc, want 1"; exit 1; }
[ -e "$dir/out" ] && { echo "a missing source created DST"; exit 1; }
"$cp_tool" -q "$dir/src.1" "$dir/src.1" 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] || { echo "same file: exit $rc, want 1"; exit 1; }
cmp -s "$dir/src.1" "$dir/dst.1" || { echo "copying a file onto itself changed it"; exit 1; }
"$cp_tool" -q "$dir" "$dir/out" 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] || { echo "directory source: exit $rc, want 1"; exit 1; }
# A GPU that does not exist is found before DST is opened, so DST keeps its bytes.
"$cp_tool" -q -g 999 "$dir/src.4097" "$dir/dst.1" 2> "$dir/err"; rc=$?
[ "$rc" -eq 1 ] || { echo "GPU 999: exit $rc, want 1"; exit 1; }
grep -q "GPU 999 does not exist" "$dir/err" || { echo "GPU 999: message"; cat "$dir/err"; exit 1; }
cmp -s "$dir/src.1" "$dir/dst.1" || { echo "a missing GPU changed DST"; exit 1; }
"$cp_tool" "$dir/src.1" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] || { echo "one argument: exit $rc, want 2"; exit 1; }
echo "ok: errors"
