#!/bin/sh
# SPDX-License-Identifier: MIT
# usage_errors.sh IO CP CHECK STATS WORKDIR: every usage error of every tool exits 2, writes
# nothing on stdout, and names the problem on stderr in one line followed by the
# "Try 'TOOL --help'." hint; hipfile-io creates no data file and hipfile-cp leaves DST alone.
# Arguments are refused before any GPU is touched, so this needs no GPU.
set -u
io=$1 cp_tool=$2 check=$3 stats=$4
dir=$5/usage-errors.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
fail=0
count=0

# expect_usage TOOL_NAME PATTERN COMMAND...: exit 2, empty stdout, stderr = message + hint.
expect_usage() {
    name=$1 pattern=$2
    shift 2
    count=$((count + 1))
    "$@" > "$dir/out" 2> "$dir/err"; rc=$?
    what="$(echo "$*" | sed "s|$dir/||g")"
    if [ "$rc" -ne 2 ]; then
        echo "FAIL: $what: exit $rc, want 2"; cat "$dir/err"; fail=1; return
    fi
    if [ -s "$dir/out" ]; then
        echo "FAIL: $what: wrote to stdout:"; cat "$dir/out"; fail=1
    fi
    if ! head -n 1 "$dir/err" | grep -q -- "^$name: .*$pattern"; then
        echo "FAIL: $what: the first stderr line does not match '$name: .*$pattern':"; cat "$dir/err"; fail=1
    fi
    if [ "$(sed -n 2p "$dir/err")" != "Try '$name --help'." ] || [ "$(wc -l < "$dir/err")" -ne 2 ]; then
        echo "FAIL: $what: stderr is not one message and the --help hint:"; cat "$dir/err"; fail=1
    fi
    if grep -q "$esc" "$dir/err"; then
        echo "FAIL: $what: an ESC byte from the arguments reached stderr"; fail=1
    fi
}
esc=$(printf '\033')

# hipfile-io. Each run names a data file that must not appear.
data=$dir/io.dat
f="--file $data"
expect_usage hipfile-io "unknown option '--bogus'" "$io" $f --bogus
expect_usage hipfile-io "unknown option '-x'" "$io" $f -rx
expect_usage hipfile-io "option '--size' needs a value" "$io" $f --size
expect_usage hipfile-io "option '-b' needs a value" "$io" $f -b
expect_usage hipfile-io "option '--verify' takes no value" "$io" $f --verify=yes
expect_usage hipfile-io "--io-size: 'bogus' is not a size" "$io" $f --io-size bogus
expect_usage hipfile-io "--size: '12X' is not a size" "$io" $f -s 12X
expect_usage hipfile-io "--size: '99999999T' is not a size" "$io" $f -s 99999999T
expect_usage hipfile-io "--size must be > 0" "$io" $f -s 0
expect_usage hipfile-io "--io-size must be > 0" "$io" $f -b 0
expect_usage hipfile-io "--threads: '0' is not a number from 1 to 1024" "$io" $f -t 0
expect_usage hipfile-io "--threads: '-3' is not a number from 1 to 1024" "$io" $f --threads -3
expect_usage hipfile-io "--threads: '99999999999' is not a number" "$io" $f --threads 99999999999
# Absurd counts and sizes are refused before anything is allocated (they used to abort the
# program with an uncaught std::length_error or std::bad_alloc, or start a million threads).
expect_usage hipfile-io "--threads: '1025' is not a number from 1 to 1024" "$io" $f -t 1025
expect_usage hipfile-io "--threads: '2147483647' is not a number from 1 to 1024" "$io" $f -t 2147483647
expect_usage hipfile-io "--streams: '1025' is not a number from 1 to 1024" "$io" $f --api async --streams 1025
expect_usage hipfile-io "--batch: '2147483647' is not a number from 1 to 4096" "$io" $f --api batch --batch 2147483647
expect_usage hipfile-io "--engine-threads: '257' is not a number from 0 to 256" "$io" $f --engine-threads 257
expect_usage hipfile-io "--size / --io-size is 1099511627776 requests per pass, more than 16777216: use a larger --io-size" \
    "$io" $f -s 1T -b 1
expect_usage hipfile-io "--size / --io-size is 16777217 requests per pass, more than 16777216" "$io" $f -s 16777217 -b 1
expect_usage hipfile-io "--size: '18446744073709551616' is not a size" "$io" $f -s 18446744073709551616
expect_usage hipfile-io "--size: '16777216T' is not a size" "$io" $f -s 16777216T
expect_usage hipfile-io "--io-size: '-1' is not a size" "$io" $f -b -1
expect_usage hipfile-io "--file-size: '' is not a size" "$io" $f --file-size ""
expect_usage hipfile-io "--reps: '-1' is not a number >= 1" "$io" $f -n -1
expect_usage hipfile-io "--reps: '2.5' is not a number" "$io" $f -n 2.5
expect_usage hipfile-io "--streams: '0' is not a number from 1 to 1024" "$io" $f --streams 0
expect_usage hipfile-io "--batch: 'x' is not a number" "$io" $f --batch x
expect_usage hipfile-io "--engine-threads: '-1' is not a number from 0 to 256" "$io" $f --engine-threads -1
expect_usage hipfile-io "--seed: '1k' is not a number" "$io" $f --random --seed 1k
expect_usage hipfile-io "--mem: 'gpu' is not device, pinned or pageable" "$io" $f --mem gpu
# An argument quoted in a message is shown escaped, not sent to the terminal as a sequence.
expect_usage hipfile-io "--mem: 'x\\\\x1b\\[31m' is not device" "$io" $f --mem "x${esc}[31m"
expect_usage hipfile-io "--api: 'mmap' is not sync, async or batch" "$io" $f --api mmap
expect_usage hipfile-io "--devices: '0,,1' is not a list" "$io" $f --devices 0,,1
expect_usage hipfile-io "--baselines: unknown 'fast'" "$io" $f --baselines copy,fast
expect_usage hipfile-io "--resident: '0' is not a fraction between 0 and 1" "$io" $f --resident 0
expect_usage hipfile-io "--resident: '1' is not a fraction between 0 and 1" "$io" $f --resident 1
expect_usage hipfile-io "--resident: 'half' is not a fraction" "$io" $f --resident half
expect_usage hipfile-io "--resident: '0.5x' is not a fraction" "$io" $f --resident 0.5x
expect_usage hipfile-io "--resident applies to reads only" "$io" $f -w --resident 0.5
expect_usage hipfile-io "--direct needs --io-size and --size in multiples of 4 KiB" "$io" $f -d -s 1M -b 5000
expect_usage hipfile-io "--file-size is smaller than --size" "$io" $f -s 8M --file-size 4M
expect_usage hipfile-io "--io-size is larger than the file" "$io" $f --random -s 8M -b 4M --file-size 2M
expect_usage hipfile-io "unexpected argument 'extra'" "$io" $f extra
# --json FILE is checked before the run, not found unwritable after it.
expect_usage hipfile-io "--json needs a FILE (- for stdout)" "$io" $f --json ""
expect_usage hipfile-io "--json: '$dir' is a directory" "$io" $f --json "$dir"
expect_usage hipfile-io "option '--file-per-device' takes no value" "$io" $f --file-per-device=yes
expect_usage hipfile-io "--resident works on one shared file: leave out --file-per-device" "$io" $f --file-per-device --resident 0.5
expect_usage hipfile-io "--file-size is smaller than one GPU's part of --size (4194304 bytes) for a sequential pass with --file-per-device" \
    "$io" $f --devices 0,1 --file-per-device -s 8M -b 1M --file-size 2M
expect_usage hipfile-io "--file-size is smaller than one GPU's part of --size (3145728 bytes) for a sequential pass with --file-per-device" \
    "$io" $f --devices 0,1,2 --file-per-device -s 8M -b 1M --file-size 3000k
expect_usage hipfile-io "--io-size is larger than each GPU's file" "$io" $f --devices 0,1 --file-per-device --random -s 8M -b 4M --file-size 2M
[ -e "$data" ] && { echo "FAIL: a hipfile-io usage error created its data file"; fail=1; }
for d in 0 1 2; do [ -e "$data.$d" ] && { echo "FAIL: a hipfile-io usage error created $data.$d"; fail=1; }; done

# hipfile-cp. DST holds known bytes that no usage error may change; NEW must not appear.
src=$dir/src dst=$dir/dst new=$dir/new
printf 'source bytes\n' > "$src"
printf 'keep me\n' > "$dst"
expect_usage hipfile-cp "missing SRC and DST" "$cp_tool"
expect_usage hipfile-cp "missing DST" "$cp_tool" "$src"
expect_usage hipfile-cp "missing DST" "$cp_tool" -q "$src"
expect_usage hipfile-cp "one path too many" "$cp_tool" "$src" "$dst" "$new"
expect_usage hipfile-cp "unknown option '--bogus'" "$cp_tool" --bogus "$src" "$dst"
expect_usage hipfile-cp "unknown option '-x'" "$cp_tool" -qx "$src" "$dst"
expect_usage hipfile-cp "option '--chunk' needs a value" "$cp_tool" "$src" "$dst" --chunk
expect_usage hipfile-cp "option '--sync' takes no value" "$cp_tool" --sync=1 "$src" "$dst"
expect_usage hipfile-cp "--chunk: '1Q' is not a size > 0" "$cp_tool" -c 1Q "$src" "$dst"
expect_usage hipfile-cp "--chunk: '0' is not a size > 0" "$cp_tool" --chunk 0 "$src" "$dst"
expect_usage hipfile-cp "--chunk: '2000T' is more than 1T" "$cp_tool" --chunk 2000T "$src" "$dst"
expect_usage hipfile-cp "--device: '-1' is not a GPU number" "$cp_tool" -g -1 "$src" "$dst"
expect_usage hipfile-cp "--device: 'gpu0' is not a GPU number" "$cp_tool" --device gpu0 "$src" "$new"
expect_usage hipfile-cp "--device: '99999999999' is not a GPU number" "$cp_tool" -g 99999999999 "$src" "$dst"
expect_usage hipfile-cp "--chunk: '-1' is not a size > 0" "$cp_tool" -c -1 "$src" "$dst"
expect_usage hipfile-cp "--chunk: '18446744073709551615T' is not a size > 0" "$cp_tool" -c 18446744073709551615T "$src" "$dst"
[ "$(cat "$dst")" = "keep me" ] || { echo "FAIL: a hipfile-cp usage error changed DST"; fail=1; }
[ -e "$new" ] && { echo "FAIL: a hipfile-cp usage error created DST"; fail=1; }

# hipfile-check.
expect_usage hipfile-check "unknown option '--bogus'" "$check" --bogus
expect_usage hipfile-check "unknown option '-z'" "$check" -z
expect_usage hipfile-check "option '-g' needs a value" "$check" -g
expect_usage hipfile-check "option '--quiet' takes no value" "$check" --quiet=1
expect_usage hipfile-check "--device: 'one' is not a GPU number" "$check" --device one "$dir"
expect_usage hipfile-check "--device: '-2' is not a GPU number" "$check" -g -2 "$dir"
expect_usage hipfile-check "--device: '4294967296' is not a GPU number" "$check" -g 4294967296 "$dir"
expect_usage hipfile-check "one directory at most" "$check" "$dir" "$dir"

# hipfile-stats.
expect_usage hipfile-stats "missing FILE, or -- PROGRAM" "$stats"
expect_usage hipfile-stats "-- needs a PROGRAM to run" "$stats" --
expect_usage hipfile-stats "unknown option '--bogus'" "$stats" --bogus
expect_usage hipfile-stats "unknown option '-x'" "$stats" -x "$src"
expect_usage hipfile-stats "one FILE at most" "$stats" "$src" "$dst"

[ "$fail" -eq 0 ] && echo "ok: $count usage errors"
exit $fail
