#!/bin/sh
# SPDX-License-Identifier: MIT
# load_slice_usage.sh LOAD WORKDIR: hipfile-load's --slice, --rank, --world-size and --layout
# usage errors exit 2 with nothing on stdout and exactly two lines on stderr: the message and
# "Try 'hipfile-load --help'.". They are refused with the arguments, before the checkpoint is
# opened or a GPU touched, so the PATH need not exist and no GPU is needed.
set -u
load=$1
dir=$2/load-slice-usage.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
ck=$dir/absent.safetensors
fail=0 count=0

# expect MESSAGE ARGS...: exit 2, empty stdout, stderr exactly "hipfile-load: MESSAGE" + hint.
expect() {
    message=$1
    shift
    count=$((count + 1))
    "$load" "$@" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    printf "hipfile-load: %s\nTry 'hipfile-load --help'.\n" "$message" > "$dir/want"
    [ "$rc" -eq 2 ] || { echo "FAIL: $*: exit $rc, want 2"; fail=1; }
    [ -s "$dir/out" ] && { echo "FAIL: $*: wrote to stdout:"; cat "$dir/out"; fail=1; }
    cmp -s "$dir/err" "$dir/want" || { echo "FAIL: $*: stderr is not '$message' and the hint:"; cat "$dir/err"; fail=1; }
}

malformed="is not DIM:START:STOP (three numbers, DIM at most 64)"
expect "--slice: 'x' $malformed" --slice x "$ck"
expect "--slice: '1:2' $malformed" --slice 1:2 "$ck"
expect "--slice: '1:2:3:4' $malformed" --slice 1:2:3:4 "$ck"
expect "--slice: '1:-1:2' $malformed" --slice 1:-1:2 "$ck"
expect "--slice: ':0:1' $malformed" --slice :0:1 "$ck"
expect "--slice: '0: 1:2' $malformed" --slice "0: 1:2" "$ck"
expect "--slice: '65:0:1' $malformed" --slice 65:0:1 "$ck"
expect "--slice: '0:0:18446744073709551616' $malformed" --slice 0:0:18446744073709551616 "$ck"
expect "--slice: '1:5:2' starts after it stops" --slice 1:5:2 "$ck"
expect "option '--slice' needs a value" "$ck" --slice
expect "--rank: 'x' is not a number >= 0" --rank x --world-size 2 "$ck"
expect "--rank: '-1' is not a number >= 0" --rank -1 --world-size 2 "$ck"
expect "--world-size: '0' is not a number >= 1" --rank 0 --world-size 0 "$ck"
expect "--world-size: '2x' is not a number >= 1" --rank 0 --world-size 2x "$ck"
expect "--rank 2 is not below --world-size 2" --rank 2 --world-size 2 "$ck"
expect "--rank 7 is not below --world-size 3" --world-size 3 --rank 7 "$ck"
expect "--rank and --world-size go together" --rank 0 "$ck"
expect "--rank and --world-size go together" --world-size 4 "$ck"
expect "--layout: 'diagonal' is not column, row or vocabulary" --rank 0 --world-size 2 --layout diagonal "$ck"
expect "--layout: 'replicated' is not column, row or vocabulary" --rank 0 --world-size 2 --layout replicated "$ck"
expect "--layout needs --rank and --world-size" --layout row "$ck"
expect "--layout needs --rank and --world-size" --slice 0:0:1 --layout row "$ck"
expect "--slice and --rank exclude each other" --slice 0:0:1 --rank 0 --world-size 2 "$ck"
expect "--slice and --rank exclude each other" --world-size 2 --slice 0:0:1 "$ck"
expect "--devices does not combine with --slice: slices go to one GPU" --devices 0,1 --slice 0:0:1 "$ck"
expect "--devices does not combine with --rank: slices go to one GPU" --rank 0 --world-size 2 --devices 0 "$ck"
expect "--write does not combine with --slice" --slice 1:0:1 --write "$dir/copy.safetensors" "$ck"
expect "--write does not combine with --rank" --write "$dir/copy.safetensors" --rank 1 --world-size 2 "$ck"
[ -e "$dir/copy.safetensors" ] && { echo "FAIL: a refused --write created its file"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: $count --slice and --rank usage errors"
exit $fail
