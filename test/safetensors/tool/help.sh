#!/bin/sh
# SPDX-License-Identifier: MIT
# help.sh LOAD OPTIONS_CPP: hipfile-load -h and --help print a manual page on stdout (nothing on
# stderr, exit 0) with every section, and its OPTIONS section names every long option of the
# getopt table in OPTIONS_CPP (read from the source, so an undocumented option fails) and
# every short one. Needs no GPU.
set -u
load=$1 src=$2
dir=${TMPDIR:-/tmp}/hipfile-load-help.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

for flag in --help -h; do
    "$load" $flag > "$dir/out" 2> "$dir/err"; rc=$?
    [ "$rc" -eq 0 ] || bad "$flag: exit $rc, want 0"
    [ -s "$dir/err" ] && bad "$flag wrote to stderr: $(cat "$dir/err")"
done
for section in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    grep -qx "$section" "$dir/out" || bad "--help has no section '$section'"
done
grep -q "^    hipfile-load - " "$dir/out" || bad "NAME does not start with 'hipfile-load - '"
sed -n '/^OPTIONS$/,/^ENVIRONMENT$/p' "$dir/out" > "$dir/options"
longs=$(grep -o '{"[a-z][a-z0-9-]*", *[a-z_]*argument' "$src" | sed 's/{"\([^"]*\)".*/\1/')
[ "$(echo "$longs" | wc -w)" -ge 12 ] || bad "found only $(echo "$longs" | wc -w) options in $src"
for opt in $longs; do
    grep -q -- "--$opt\b" "$dir/options" || bad "OPTIONS does not describe --$opt"
done
for opt in g n q h; do
    grep -q -- "-$opt\b" "$dir/options" || bad "OPTIONS does not describe -$opt"
done
sed -n '/^EXIT STATUS$/,/^EXAMPLES$/p' "$dir/out" > "$dir/exit"
for code in 0 1 2; do
    grep -q "^    $code " "$dir/exit" || bad "EXIT STATUS does not explain $code"
done
grep -q HIPFILE_LOAD_CORRUPT "$dir/out" || bad "ENVIRONMENT does not mention HIPFILE_LOAD_CORRUPT"
[ "$(grep -c '^    hipfile-load ' "$dir/out")" -ge 3 ] || bad "fewer than 2 examples"
grep -qF "(default 0)" "$dir/out" || bad "--help does not give the --device default"
grep -qF "(default 1, at least 1)" "$dir/out" || bad "--help does not give the --reps default"
[ "$fail" -eq 0 ] && echo "ok: hipfile-load --help"
exit $fail
