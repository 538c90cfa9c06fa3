#!/bin/bash
# SPDX-License-Identifier: MIT
# Same-machine A/B of two library trees on the GPU machine: builds the tools of OLD (a tarball of
# another commit, e.g. `git archive --prefix=old/ REV | gzip > .devkit/old.tar.gz`, carried with
# .devkit) and of this tree side by side, then runs bench/run.sh's arguments for the figures that
# vary between machines, alternating old and new, ROUNDS times. Figures from different machines
# are not comparable (bench/RESULTS.md); these are.
#   bench/ab.sh OLD_TARBALL OUTDIR [ROUNDS]
set -u
tarball=${1:?usage: bench/ab.sh OLD_TARBALL OUTDIR [ROUNDS]}
out=${2:?usage: bench/ab.sh OLD_TARBALL OUTDIR [ROUNDS]}
rounds=${3:-2}
mkdir -p "$out" /tmp/ab-old
tar xzf "$tarball" -C /tmp/ab-old --strip-components=1
build_tools() {  # SOURCE BUILD
    [ -x "$2/tools/hipfile-io" ] && return 0
    { meson setup "$2" "$1" -Dplatform=nvidia --buildtype=release -Dtests=false -Dexamples=false \
        -Dpython=disabled && ninja -C "$2"; } > "$out/build-$(basename "$2").log" 2>&1 ||
        { tail -20 "$out/build-$(basename "$2").log"; return 1; }
}
build_tools /tmp/ab-old /tmp/build-old & old=$!
build_tools "$PWD" /tmp/build-new || exit 1
wait $old || exit 1
c="--file /tmp/hipfile-bench-read.dat --file-size 8G"
w="--file /tmp/hipfile-bench-write.dat --file-size 8G"
figs=(
    "engine1|$c -s 8G -b 1G -t 1 -n 3 --engine-threads 1 --baselines copy"
    "engine2|$c -s 8G -b 1G -t 1 -n 3 --engine-threads 2 --baselines copy"
    "engine3|$c -s 8G -b 1G -t 1 -n 3 --engine-threads 3 --baselines copy"
    "default|$c -s 8G -b 1G -t 1 -n 3"
    "rand4k-t1|$c -s 256M -b 4k -t 1 -n 5 --random --baselines hand"
    "rand4k-t16|$c -s 256M -b 4k -t 16 -n 3 --random --baselines hand"
    "rand64k-t1|$c -s 1G -b 64k -t 1 -n 3 --random --baselines hand"
    "rand64k-t16|$c -s 4G -b 64k -t 16 -n 3 --random --baselines hand"
    "batch|$c -s 1G -b 64k -t 1 -n 3 --random --api batch --batch 128 --baselines serial"
    "write-buffered|$w -w --overwrite -s 8G -b 64M -t 4 -n 1 --buffered --baselines copy,raw"
)
for round in $(seq "$rounds"); do
    for f in "${figs[@]}"; do
        name=${f%%|*} args=${f#*|}
        for b in old new; do
            echo "== $round $b $name"
            # An old tree's hipfile-io may predate --overwrite (it then wrote any file it was given).
            a=$args
            "/tmp/build-$b/tools/hipfile-io" --help 2>&1 | grep -q -- --overwrite || a=${args//--overwrite/}
            # shellcheck disable=SC2086  # the arguments are words
            timeout 100 "/tmp/build-$b/tools/hipfile-io" $a 2>&1 | grep -vE '^\s*$' | head -12
        done
    done
done > "$out/ab.txt"
# Best GB/s of each run (the field after the three-word label), old and new side by side.
awk '/^== / { key = $4; side = $3 } /^  hipfile (sync|async|batch) (read|write) / { best[key, side] = best[key, side] " " $4 }
     /^== / && !(($4) in seen) { seen[$4] = 1; order[++n] = $4 }
     END { for (i = 1; i <= n; i++) printf "%-16s old%s | new%s\n", order[i], best[order[i], "old"], best[order[i], "new"] }' \
    "$out/ab.txt" | tee "$out/ab-summary.txt"
