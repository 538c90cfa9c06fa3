#!/bin/sh
# SPDX-License-Identifier: MIT
# help.sh IO CP CHECK STATS IO_OPTIONS CP_MAIN CHECK_MAIN: every tool's -h and --help print a
# manual page on stdout (nothing on stderr, exit 0) with the sections NAME, SYNOPSIS,
# DESCRIPTION, OPTIONS, ENVIRONMENT, EXIT STATUS, EXAMPLES and SEE ALSO, and its OPTIONS section
# names every long option in the tool's getopt table (read from the source, so a new option
# without documentation fails here) and every short one. Needs no GPU.
set -u
io=$1 cp_tool=$2 check=$3 stats=$4
io_src=$5 cp_src=$6 check_src=$7
dir=${TMPDIR:-/tmp}/hipfile-help.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0
tool_fail=0
bad() { echo "FAIL: $*"; fail=1; tool_fail=1; }

# The long option names of a getopt table: lines such as {"io-size", required_argument, ...}.
long_options() {
    grep -o '{"[a-z][a-z0-9-]*", *[a-z_]*argument' "$1" | sed 's/{"\([^"]*\)".*/\1/'
}

# check_tool NAME EXE VARIABLE SHORT_OPTIONS LONG_OPTIONS...
check_tool() {
    name=$1 exe=$2 variable=$3 shorts=$4
    shift 4
    tool_fail=0
    for flag in --help -h; do
        "$exe" $flag > "$dir/out" 2> "$dir/err"; rc=$?
        [ "$rc" -eq 0 ] || bad "$name $flag: exit $rc, want 0"
        [ -s "$dir/err" ] && bad "$name $flag wrote to stderr: $(cat "$dir/err")"
    done
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        grep -qx "$section" "$dir/out" || bad "$name --help has no section '$section'"
    done
    grep -q "^    $name - " "$dir/out" || bad "$name --help: NAME does not start with '$name - '"
    grep -q "^    $name" "$dir/out" || bad "$name --help: no synopsis line"
    sed -n '/^OPTIONS$/,/^ENVIRONMENT$/p' "$dir/out" > "$dir/options"
    sed -n '/^ENVIRONMENT$/,/^EXIT STATUS$/p' "$dir/out" > "$dir/environment"
    sed -n '/^EXIT STATUS$/,/^EXAMPLES$/p' "$dir/out" > "$dir/exit"
    sed -n '/^EXAMPLES$/,/^SEE ALSO$/p' "$dir/out" > "$dir/examples"
    for opt in "$@"; do
        grep -q -- "--$opt\b" "$dir/options" || bad "$name --help: OPTIONS does not describe --$opt"
    done
    for opt in $shorts; do
        grep -q -- "-$opt\b" "$dir/options" || bad "$name --help: OPTIONS does not describe -$opt"
    done
    grep -q "$variable" "$dir/environment" || bad "$name --help: ENVIRONMENT does not mention $variable"
    for code in 0 1 2; do
        grep -q "^    $code " "$dir/exit" || bad "$name --help: EXIT STATUS does not explain $code"
    done
    # Example command lines sit at the first indent and run the tool (perhaps after VAR=value).
    [ "$(grep -c "^    \\([A-Z_]*=[^ ]* \\)*$name " "$dir/examples")" -ge 2 ] || bad "$name --help: fewer than 2 examples"
    [ "$tool_fail" -eq 0 ] && echo "ok: $name --help"
}

io_longs=$(long_options "$io_src")
cp_longs=$(long_options "$cp_src")
check_longs=$(long_options "$check_src")
# A table that reads empty would make the option checks vacuous.
[ "$(echo "$io_longs" | wc -w)" -ge 25 ] || bad "found only $(echo "$io_longs" | wc -w) options in $io_src"
[ "$(echo "$cp_longs" | wc -w)" -ge 6 ] || bad "found only $(echo "$cp_longs" | wc -w) options in $cp_src"
[ "$(echo "$check_longs" | wc -w)" -ge 3 ] || bad "found only $(echo "$check_longs" | wc -w) options in $check_src"

check_tool hipfile-io "$io" HIPFILE_THREADS "r w b s t m d n f h" $io_longs
check_tool hipfile-cp "$cp_tool" HIPFILE_THREADS "c g q h" $cp_longs
check_tool hipfile-check "$check" HIPFILE_CUFILE_LIBRARY "g q h" $check_longs
check_tool hipfile-stats "$stats" HIPFILE_STATS_FILE "h" help
grep -q -- '^    --$' "$dir/options" || bad "hipfile-stats --help: OPTIONS does not describe --"
# The defaults the parsers start from are in the text.
"$io" --help > "$dir/out"
for text in "default 16M" "default 1G" "default 1, from 1 to 1024" "default 4, from 1 to 1024" "default 128, from 1 to 4096" \
    "default 3, at least 1" "Default: hipfile-io.dat in a new directory under" "--overwrite" "(default 0)" "all (the default)" "by_hand" "vs_by_hand" \
    "iops_best" "ops_per_pass" "hand"; do
    grep -qF -- "$text" "$dir/out" || bad "hipfile-io --help does not say '$text'"
done
"$cp_tool" --help > "$dir/out"
grep -qF "(default 256M)" "$dir/out" || bad "hipfile-cp --help does not give the chunk default"
exit $fail
