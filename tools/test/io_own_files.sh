#!/bin/sh
# SPDX-License-Identifier: MIT
# io_own_files.sh IO WORKDIR: hipfile-io writes only to files it creates. An existing --file
# that a run would write (-w, --create, smaller than --file-size) is refused, by name and with
# the option that allows it, and keeps its bytes; --overwrite allows it; reads of an existing
# file need nothing. Without --file the data file lives in a directory of its own under
# $TMPDIR, gone after a normal end, an error and SIGINT; nothing is left in the working
# directory.
set -u
io=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: some runs start in another directory
dir=$2/io-own-files.$$
mkdir -p "$dir/cwd" "$dir/tmp"
trap 'rm -rf "$dir"' EXIT
fail=0 count=0
small="-s 64k -b 64k --reps 1 --baselines none"
bad() { echo "FAIL: $*"; fail=1; }

# refused MESSAGE ARGS...: exit 1, stderr's last line is MESSAGE exactly, user.dat unchanged.
refused() {
    want=$1
    shift
    count=$((count + 1))
    timeout 60 "$io" "$@" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    [ "$rc" -eq 1 ] || { bad "$*: exit $rc, want 1"; cat "$dir/err"; return; }
    [ "$(tail -n 1 "$dir/err")" = "hipfile-io: error: $want" ] ||
        { bad "$*: want the message '$want', got:"; cat "$dir/err"; }
    cmp -s "$dir/user.dat" "$dir/user.orig" || bad "$*: user.dat changed"
}

# A user's file of 1 MiB, not hipfile-io's pattern.
head -c 1048576 /dev/urandom > "$dir/user.orig"
cp "$dir/user.orig" "$dir/user.dat"
user=$dir/user.dat
tail="pass --overwrite to allow writing to it"
refused "--file: $user exists and a write run (-w) would overwrite it; $tail" -w -f "$user" $small
refused "--file: $user exists and --create would rewrite it with the pattern; $tail" --create -f "$user" $small
refused "--file: $user exists and it is smaller than --file-size (1073741824 bytes) and would be rewritten with the pattern; $tail" \
    -f "$user" --reps 1 --baselines none
cp "$user" "$user.0"
refused "--file: $user.0 exists and a write run (-w) would overwrite it; $tail" \
    -w -f "$user" --file-per-device --devices 0 $small --file-size 64k
cmp -s "$user.0" "$dir/user.orig" || bad "--file-per-device: $user.0 changed"
[ "$fail" -eq 0 ] && echo "ok: refusals"

# Reads of an existing file large enough: no --overwrite, bytes unchanged.
count=$((count + 1))
"$io" -f "$user" $small > "$dir/out" 2>&1 || { bad "a read of $user failed"; cat "$dir/out"; }
cmp -s "$user" "$dir/user.orig" || bad "a read changed $user"
# --overwrite lets a write run write it: afterwards it holds the pattern, and verifies.
count=$((count + 1))
"$io" -w --overwrite --verify -f "$user" $small > "$dir/out" 2>&1 || { bad "-w --overwrite failed"; cat "$dir/out"; }
cmp -s "$user" "$dir/user.orig" && bad "-w --overwrite left $user as it was"
"$io" --verify -f "$user" $small > "$dir/out" 2>&1 || { bad "$user does not verify after -w --overwrite"; cat "$dir/out"; }
# A file the user may only read: read runs (hot, cold, verify, all baselines) open it read-only.
# Root ignores file modes, so as root the run is made as user nobody.
count=$((count + 1))
"$io" -f "$dir/ro.dat" $small > /dev/null 2>&1 && chmod 0444 "$dir/ro.dat" && chmod 0755 "$dir"
as_user=""
[ "$(id -u)" -ne 0 ] || as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
if $as_user "$io" --help > /dev/null 2>&1; then
    for cache in --hot --cold; do
        $as_user "$io" -f "$dir/ro.dat" -s 64k -b 64k --reps 1 --verify $cache > "$dir/out" 2>&1 ||
            { bad "a $cache read of a read-only file failed"; cat "$dir/out"; }
    done
else
    echo "not run: reads of a read-only file (this user cannot run hipfile-io as user nobody)"
fi
# A file hipfile-io creates in this run is its own: -w needs no --overwrite.
count=$((count + 1))
"$io" -w -f "$dir/new.dat" $small > "$dir/out" 2>&1 || { bad "-w on a new file failed"; cat "$dir/out"; }
[ "$fail" -eq 0 ] && echo "ok: reads, --overwrite, new files"

# No --file: run from an empty working directory with TMPDIR set; both must stay empty.
# cufile.log is NVIDIA's libcufile's own log, written to the working directory when the cuFile
# fastpath loads it (its cufile.json decides); hipfile-io writes no such file.
empty() {
    left=$(ls -A "$1" | grep -vx cufile.log)
    [ -z "$left" ] || { bad "$2: left $left in $1"; rm -rf "${1:?}"/*; }
    rm -f "$1/cufile.log"
}
count=$((count + 1))
(cd "$dir/cwd" && TMPDIR=$dir/tmp "$io" $small > "$dir/out" 2>&1) || { bad "a run without --file failed"; cat "$dir/out"; }
grep -q "^file $dir/tmp/hipfile-io\.[^/]*/hipfile-io.dat " "$dir/out" || { bad "the table names no file under TMPDIR"; cat "$dir/out"; }
empty "$dir/cwd" "a normal end"
empty "$dir/tmp" "a normal end"
# An error after the file was made: --json to a FIFO that nobody reads.
count=$((count + 1))
mkfifo "$dir/fifo"
(cd "$dir/cwd" && TMPDIR=$dir/tmp timeout 60 "$io" $small --json "$dir/fifo" > "$dir/out" 2>&1); rc=$?
[ "$rc" -eq 1 ] || { bad "--json FIFO: exit $rc, want 1"; cat "$dir/out"; }
empty "$dir/cwd" "an error"
empty "$dir/tmp" "an error"
# No arguments at all, stopped by SIGINT once its 1 GiB file exists. A background job of a
# script starts with SIGINT ignored, which hipfile-io respects: env restores the default.
count=$((count + 1))
(cd "$dir/cwd" && TMPDIR=$dir/tmp exec env --default-signal=INT "$io" > "$dir/out" 2>&1 < /dev/null) &
pid=$!
i=0
while [ -z "$(ls "$dir"/tmp/hipfile-io.*/hipfile-io.dat 2>/dev/null)" ] && [ "$i" -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
[ "$i" -lt 200 ] || bad "no data file under TMPDIR after 20 s"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 130 ] || { bad "SIGINT: exit $rc, want 130 (killed by SIGINT)"; cat "$dir/out"; }
empty "$dir/cwd" "SIGINT"
empty "$dir/tmp" "SIGINT"
[ "$fail" -eq 0 ] && echo "ok: no --file leaves nothing behind"

[ "$fail" -eq 0 ] && echo "ok: $count hipfile-io own-file cases"
exit "$fail"
