#!/bin/sh
# SPDX-License-Identifier: MIT
# write_nodes.sh LOAD WORKDIR: hipfile-load --write at a character or block device node (a copy
# of /dev/null, which a rename as root would have replaced) is a usage error, exit 2, and the
# node stays. Making the nodes needs root (CAP_MKNOD): without it the test is a SKIP (exit 77).
# usage.sh has the FIFO, socket, directory and link. Needs no GPU: refused with the arguments.
set -u
load=$1
dir=$2/load-write-nodes.$$
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: not root: mknod of a device node needs CAP_MKNOD"
    exit 77
fi
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
if ! mknod "$dir/null" c 1 3 2> "$dir/err"; then
    echo "SKIP: mknod refused ($(cat "$dir/err")): no CAP_MKNOD here"
    exit 77
fi
mknod "$dir/block" b 7 200 || exit 1
fail=0
rule="not a regular file: a checkpoint replaces only a regular file or takes a missing name"
for node in "null:character device" "block:block device"; do
    name=${node%%:*} kind=${node#*:}
    timeout 20 "$load" --write "$dir/$name" "$dir/absent.safetensors" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    printf "hipfile-load: --write: '%s' is a %s, %s\nTry 'hipfile-load --help'.\n" "$dir/$name" "$kind" "$rule" > "$dir/want"
    [ "$rc" -eq 2 ] || { echo "FAIL: --write at a $kind: exit $rc, want 2"; fail=1; }
    [ -s "$dir/out" ] && { echo "FAIL: --write at a $kind wrote to stdout"; fail=1; }
    cmp -s "$dir/err" "$dir/want" || { echo "FAIL: --write at a $kind: stderr is not:"; cat "$dir/want"; cat "$dir/err"; fail=1; }
done
[ -c "$dir/null" ] || { echo "FAIL: --write replaced the character device"; fail=1; }
[ -b "$dir/block" ] || { echo "FAIL: --write replaced the block device"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: --write refuses character and block devices"
exit $fail
