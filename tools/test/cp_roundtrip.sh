#!/bin/sh
# SPDX-License-Identifier: MIT
# hipfile-cp copies files of awkward sizes (empty, one byte, around a 4 KiB block, a few MiB
# plus a tail) byte for byte, buffered and with O_DIRECT, and fails cleanly on bad input.
# usage: cp_roundtrip.sh HIPFILE_CP WORKDIR
set -eu
cp_tool=$1
dir=$2/cp-roundtrip.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

for size in 0 1 4095 4097 3145735; do
    head -c "$size" /dev/urandom > "$dir/src.$size"
    "$cp_tool" -q "$dir/src.$size" "$dir/dst.$size"
    cmp "$dir/src.$size" "$dir/dst.$size"
    # A smaller chunk forces several read/write rounds; --buffered covers the fallback path.
    "$cp_tool" -q --buffered --chunk 1M "$dir/src.$size" "$dir/dst2.$size"
    cmp "$dir/src.$size" "$dir/dst2.$size"
    echo "ok: $size bytes"
done

# Overwriting a larger file must leave exactly the source's size.
head -c 9000 /dev/urandom > "$dir/big"
"$cp_tool" -q "$dir/src.4097" "$dir/big"
cmp "$dir/src.4097" "$dir/big"

# Errors: exit 1 with a message, never a crash; usage errors exit 2.
set +e
"$cp_tool" -q "$dir/missing" "$dir/out" 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] || { echo "missing source: exit $rc, want 1"; exit 1; }
"$cp_tool" -q "$dir/src.1" "$dir/src.1" 2>/dev/null; rc=$?
[ "$rc" -eq 1 ] || { echo "same file: exit $rc, want 1"; exit 1; }
"$cp_tool" "$dir/src.1" 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] || { echo "one argument: exit $rc, want 2"; exit 1; }
echo "ok: errors"
