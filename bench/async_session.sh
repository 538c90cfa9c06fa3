#!/bin/sh
# SPDX-License-Identifier: MIT
# Stream-ordered I/O on the GPU machine, the checks of bench/RESULTS.md "Stream-ordered I/O":
#   source .devkit/env.sh && bench/async_session.sh OUTDIR [PHASES]
# PHASES (default "build suite bench table"), any of:
#   build  configure and build platform=nvidia (release, tests on) in $BUILD (/tmp/hipfile-build)
#   suite  every test suite, 8 at once (OUTDIR/suite-N.log, N counting the calls); the async,
#          ordering and stress suites are part of it
#   bench  64 async 16 MiB reads (and writes) on 4 streams against the same calls serially
#   table  RUNS runs (default 150) in each of PROCS (8) hipfile-io processes at once, per mode,
#          each verifying every byte: the failures per mode (OUTDIR/table.txt); ASYNC_ONLY=1 runs
#          the stream-ordered modes alone
set -u
out=${1:?usage: bench/async_session.sh OUTDIR [PHASES]}
phases=${2:-build suite bench table}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-/tmp/hipfile-build}
data=${DATA_DIR:-/tmp}
io=$build/tools/hipfile-io
mkdir -p "$out"

has() { case " $phases " in *" $1 "*) return 0 ;; esac; return 1; }

if has build; then
    if ! { meson setup "$build" "$here" -Dplatform=nvidia --buildtype=release && ninja -C "$build"; } \
        > "$out/build.log" 2>&1; then
        tail -n 40 "$out/build.log"
        exit 1
    fi
    echo "== built"
fi

if has suite; then
    n=1
    while [ -e "$out/suite-$n.log" ]; do n=$((n + 1)); done
    echo "== suite run $n"
    HIPFILE_TEST_DIR=$data timeout "${TEST_TIMEOUT:-420}" meson test -C "$build" --print-errorlogs --num-processes 8 \
        > "$out/suite-$n.log" 2>&1
    grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|SKIP)|^(Ok|Fail|Skipped|Timeout): " "$out/suite-$n.log"
    grep -h "^SKIP:" "$build"/meson-logs/testlog.txt | sort | uniq -c | head -n 20
fi

if has bench; then
    echo "== async against serial (64 x 16 MiB, 4 streams, page cache hot)"
    f=$data/hipfile-async.dat
    "$io" --file "$f" --create --overwrite -s 1G -b 64M -n 1 --baselines none > /dev/null 2>&1
    for op in "" "-w --overwrite"; do
        "$io" --file "$f" -s 1G -b 16M -t 1 -n 3 $op --api async --streams 4 --baselines copy,serial \
            --json "$out/async${op%% *}.json" 2>&1 | tail -n 8
    done
    rm -f "$f"
fi

if has table; then
    runs=${RUNS:-150}
    procs=${PROCS:-8}
    echo "== $procs processes x $runs runs per mode, every byte verified" | tee "$out/table.txt"
    # ASYNC_ONLY=1: the four stream-ordered rows alone.
    set -- "--api async --write --streams 1" "--api async --write --streams 2 --direct" \
        "--api async --write --streams 2" "--api async --streams 2"
    [ "${ASYNC_ONLY:-0}" = 1 ] || set -- "$@" "--api batch --write --batch 8 --io-size 64k" "--write --threads 2"
    for mode in "$@"; do
        dir=$data/async-table.$$
        mkdir -p "$dir"
        start=$(date +%s)
        p=0
        while [ $p -lt "$procs" ]; do
            (
                bad=0
                i=0
                while [ $i -lt "$runs" ]; do
                    timeout 60 "$io" --file "$dir/f$p" --size 8M --io-size 1M --reps 1 --baselines none --verify \
                        --overwrite $mode > "$dir/log$p" 2>&1 || { bad=$((bad + 1)); tail -n 2 "$dir/log$p" >> "$dir/errors"; }
                    i=$((i + 1))
                done
                echo $bad > "$dir/bad$p"
            ) &
            p=$((p + 1))
        done
        wait
        failed=$(cat "$dir"/bad* | awk '{s += $1} END {print s}')
        echo "$mode: $failed of $((procs * runs)) failed ($(($(date +%s) - start)) s)" | tee -a "$out/table.txt"
        [ -f "$dir/errors" ] && head -n 4 "$dir/errors" | tee -a "$out/table.txt"
        rm -rf "$dir"
    done
fi
