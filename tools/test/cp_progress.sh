#!/bin/sh
# SPDX-License-Identifier: MIT
# cp_progress.sh HIPFILE_CP SLOW_PWRITE_SO WORKDIR: hipfile-cp --progress moves through the
# copy, with the default chunk (one chunk would hold the whole file) and with a file several
# chunks long: the line, redrawn every half second, shows a percentage strictly between 0 and
# 100, and never goes back. The shim makes every pwrite sleep in proportion to its bytes
# (64 ms per MiB), so each copy takes over a second, however fast the machine is.
set -u
cp_tool=$1
shim=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=$3/cp-progress.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0
[ -f "$shim" ] || { echo "FAIL: no shim at $shim"; exit 1; }
head -c $((64 << 20)) /dev/urandom > "$dir/src"

# The percentages of the progress line, in the order drawn ("... (NN%) ...", '\r'-separated).
percentages() { tr '\r' '\n' < "$1" | sed -n 's/.*(\([0-9][0-9]*\)%).*/\1/p'; }

# copy LABEL ARGS...: the copy succeeds, the bytes match, a percentage strictly between 0 and
# 100 was shown, and none was smaller than the one before.
copy() {
    label=$1
    shift
    rm -f "$dir/dst"
    HIPFILE_THREADS=2 SLOW_PWRITE_US_PER_MIB=64000 LD_PRELOAD=$shim \
        "$cp_tool" --progress "$@" "$dir/src" "$dir/dst" 2> "$dir/err" < /dev/null ||
        { echo "FAIL: $label: exit $?"; cat "$dir/err"; fail=1; return; }
    cmp -s "$dir/src" "$dir/dst" || { echo "FAIL: $label: the copy differs"; fail=1; }
    shown=$(percentages "$dir/err" | tr '\n' ' ')
    echo "$label: $shown"
    percentages "$dir/err" | awk '$1 > 0 && $1 < 100 { mid = 1 } $1 < last { back = 1 } { last = $1 }
        END { exit !(mid && !back) }' ||
        { echo "FAIL: $label: want a percentage between 0 and 100 and none going back, got: $shown"; fail=1; }
}

copy "default chunk"
copy "4 MiB chunks" --chunk 4M
[ "$fail" -eq 0 ] && echo "ok: hipfile-cp --progress moves"
exit "$fail"
