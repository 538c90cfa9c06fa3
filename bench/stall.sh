#!/bin/bash
# SPDX-License-Identifier: MIT
# The stress's stall report on the GPU machine, symbolized: runs test/stress/stress_test in the
# variants below (async only; the pinned limit changed every 3 ms or never; 8 or 2 threads; the
# test's own copies synchronous or on its streams; then 64 threads of every form). A stuck run
# prints every thread's stack after 6 s; the library's frames get their function names from
# addr2line. See bench/HISTORY.md, "Session of 2026-12-01, late night".
#   bench/stall.sh BUILD_DIR OUTFILE
set -u
exe=${1:?usage: bench/stall.sh BUILD_DIR OUTFILE}/test/stress/stress_test
out=${2:?usage: bench/stall.sh BUILD_DIR OUTFILE}
symbolize() {
    python3 -c '
import re, subprocess, sys
for line in sys.stdin:
    m = re.match(r"(\S+\.so[^(]*)\(\+(0x[0-9a-f]+)\)", line)
    if m and "hipfile" in m.group(1):
        name = subprocess.run(["addr2line", "-f", "-C", "-e", m.group(1), m.group(2)],
                              capture_output=True, text=True).stdout.split("\n")[0]
        line = line.rstrip() + "  " + name + "\n"
    sys.stdout.write(line)'
}
# FORMS CHANGE_MS THREADS STREAM_COPIES
for v in "1 3 8 0" "1 3 2 0" "1 0 8 0" "1 0 8 1" "1 3 8 1" "012 3 64 1"; do
    set -- $v
    echo "=== FORMS=$1 CHANGE_MS=$2 THREADS=$3 STREAM_COPIES=$4"
    HIPFILE_STRESS_FORMS=$1 HIPFILE_STRESS_CHANGE_MS=$2 HIPFILE_STRESS_THREADS=$3 HIPFILE_STRESS_STREAM_COPIES=$4 \
        HIPFILE_STRESS_SECONDS=10 HIPFILE_STRESS_STALL_S=6 timeout 40 "$exe" 2>&1 | symbolize | tail -c 40000
    echo "rc=${PIPESTATUS[0]}"
done > "$out"
grep -E "^===|^rc=|stuck" "$out"
