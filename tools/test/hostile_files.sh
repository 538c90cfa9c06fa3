#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile_files.sh CP STATS CHECK WORKDIR: files that are not what a tool expects end with a clear
# message and exit 1, promptly: a FIFO (which a plain open or read waits on forever), a device
# that never ends (/dev/zero), a directory, a report too large to be one; names that hold escape
# sequences reach the terminal escaped. Every run is under timeout(1), so a regression fails
# here instead of hanging. These are decided before any GPU is touched: no GPU needed.
set -u
cp_tool=$1 stats=$2 check=$3
dir=$4/hostile-files.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0 count=0
esc=$(printf '\033')

# expect RC PATTERN COMMAND...: exit RC within 10 s, nothing on stdout, stderr one line that
# matches PATTERN and holds no ESC byte.
expect() {
    want=$1 pattern=$2
    shift 2
    count=$((count + 1))
    timeout 10 "$@" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    what="$(echo "$*" | sed "s|$dir/||g")"
    [ "$rc" -ne 124 ] || { echo "FAIL: $what: still running after 10 s"; fail=1; return; }
    [ "$rc" -eq "$want" ] || { echo "FAIL: $what: exit $rc, want $want"; cat "$dir/err"; fail=1; return; }
    [ -s "$dir/out" ] && { echo "FAIL: $what: wrote to stdout:"; cat "$dir/out"; fail=1; }
    grep -q -- "$pattern" "$dir/err" || { echo "FAIL: $what: stderr does not match '$pattern':"; cat "$dir/err"; fail=1; }
    [ "$(wc -l < "$dir/err")" -eq 1 ] || { echo "FAIL: $what: stderr is not one line:"; cat "$dir/err"; fail=1; }
    grep -q "$esc" "$dir/err" && { echo "FAIL: $what: an ESC byte reached stderr"; fail=1; }
}

mkfifo "$dir/fifo"
mkdir "$dir/sub"
printf 'source bytes\n' > "$dir/src"
printf 'keep me\n' > "$dir/dst"

# hipfile-cp: SRC and DST must be regular files (DST may be new); DST is not touched otherwise.
expect 1 "^hipfile-cp: $dir/fifo is a FIFO, not a regular file$" "$cp_tool" -q "$dir/fifo" "$dir/new"
expect 1 "^hipfile-cp: $dir/fifo is a FIFO, not a regular file$" "$cp_tool" -q "$dir/src" "$dir/fifo"
expect 1 "^hipfile-cp: /dev/zero is a character device, not a regular file$" "$cp_tool" -q /dev/zero "$dir/new"
expect 1 "^hipfile-cp: /dev/null is a character device, not a regular file$" "$cp_tool" -q "$dir/src" /dev/null
expect 1 "^hipfile-cp: $dir/sub is a directory, not a regular file$" "$cp_tool" -q "$dir/sub" "$dir/new"
expect 1 "^hipfile-cp: $dir/sub is a directory, not a regular file$" "$cp_tool" -q "$dir/src" "$dir/sub"
expect 1 "^hipfile-cp: $dir/src and $dir/src are the same file$" "$cp_tool" -q "$dir/src" "$dir/src"
ln -s src "$dir/link"
expect 1 "^hipfile-cp: $dir/src and $dir/link are the same file$" "$cp_tool" -q "$dir/src" "$dir/link"
expect 1 "^hipfile-cp: cannot stat $dir/a\\\\x1b\[31mb: No such file or directory$" "$cp_tool" -q "$dir/a${esc}[31mb" "$dir/new"
[ -e "$dir/new" ] && { echo "FAIL: a refused hipfile-cp created DST"; fail=1; }
[ "$(cat "$dir/dst")" = "keep me" ] || { echo "FAIL: a refused hipfile-cp changed a file"; fail=1; }
[ -p "$dir/fifo" ] || { echo "FAIL: the FIFO is gone"; fail=1; }

# hipfile-stats FILE: a regular file of at most 16 MiB.
expect 1 "^hipfile-stats: cannot read /dev/zero: it is not a regular file$" "$stats" /dev/zero
expect 1 "^hipfile-stats: cannot read $dir/fifo: it is not a regular file$" "$stats" "$dir/fifo"
expect 1 "^hipfile-stats: cannot read $dir/sub: it is a directory$" "$stats" "$dir/sub"
expect 1 "^hipfile-stats: cannot read $dir/none: No such file or directory$" "$stats" "$dir/none"
{ echo "hipfile-stats 1"; head -c $((16 << 20)) /dev/zero | tr '\0' 'x'; } > "$dir/big"
expect 1 "^hipfile-stats: cannot read $dir/big: it is larger than 16 MiB, which no report is$" "$stats" "$dir/big"
# A crafted report: its names are shown with \xNN, never as escape sequences.
printf 'hipfile-stats 1\npid 7\nlevel 1\npath x\033[31my read ops 2 bytes 8192 errors 0 time_ns 2000\n' > "$dir/report"
count=$((count + 1))
if timeout 10 "$stats" "$dir/report" > "$dir/out" 2> "$dir/err"; then
    grep -q "$esc" "$dir/out" && { echo "FAIL: stats: an ESC byte reached stdout"; fail=1; }
    grep -q '^x\\x1b\[31my  *read  *2  *8192 ' "$dir/out" || { echo "FAIL: stats: the escaped name is not shown:"; cat "$dir/out"; fail=1; }
else
    echo "FAIL: stats of a crafted report: exit $?"; cat "$dir/err"; fail=1
fi

# hipfile-check DIR: a DIR with an escape sequence in its name is shown escaped.
count=$((count + 1))
timeout 10 "$check" -q "$dir/a${esc}[31mb" > "$dir/out" 2> "$dir/err"; rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: check of a missing DIR: exit $rc, want 1"; fail=1; }
grep -q "$esc" "$dir/out" "$dir/err" && { echo "FAIL: check: an ESC byte reached the output"; fail=1; }
grep -q "^verdict: FAIL: cannot examine $dir/a\\\\x1b\\[31mb$" "$dir/out" || { echo "FAIL: check: the verdict:"; cat "$dir/out"; fail=1; }

[ "$fail" -eq 0 ] && echo "ok: $count hostile files"
exit $fail
