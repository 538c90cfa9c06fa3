#!/bin/sh
# SPDX-License-Identifier: MIT
# The first load in fresh processes, beside the figures of record, in one call on the GPU machine
# (bench/RESULTS.md, "The first load"):
#   bench/first_load.sh OUTDIR
# 1. builds $BUILD (default build-gpu: platform=nvidia, release) when hipfile-load or the Python
#    module is missing, with .devkit/env.sh sourced where it exists;
# 2. bench/first_load.py: safetensors, hipfile.load_safetensors and hipfile-load, each in new
#    processes, PASSES (default 3) passes alternating; first against later loads in one process;
#    the phase breakdown of a first load; step by step what a first load pays once
#    (OUTDIR/first_load.json, OUTDIR/first_load.txt);
# 3. unless RUN=0, bench/run.sh OUTDIR (the engine's figures of record, about 5 minutes).
# DATA_DIR (default /tmp) holds the 7.4 GB checkpoint, kept for later runs.
set -u
out=${1:?usage: bench/first_load.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-gpu}
[ -f "$here/.devkit/env.sh" ] && . "$here/.devkit/env.sh"
if [ ! -x "$build/tools/hipfile-load" ] || ! ls "$build"/python/hipfile/_hipfile*.so > /dev/null 2>&1; then
    { [ -f "$build/build.ninja" ] || meson setup "$build" "$here" -Dplatform=nvidia --buildtype=release \
        -Dtests=false -Dexamples=false; } > "$out/build.log" 2>&1 && ninja -C "$build" >> "$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log"; echo "bench/first_load.sh: build failed"; exit 1; }
fi
PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH} python3 "$here/bench/first_load.py" --load "$build/tools/hipfile-load" \
    --dir "${DATA_DIR:-/tmp}" --passes "${PASSES:-3}" --out "$out" 2>&1 | tee "$out/first_load.txt"
[ "${RUN:-1}" = 0 ] || BUILD=$build "$here/bench/run.sh" "$out" | tail -n 25
