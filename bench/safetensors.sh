#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model weights on the GPU machine, in one call (about 2 minutes; bench/safetensors_load.py says
# what it measures):
#   bench/safetensors.sh [OUTDIR]
# Builds $BUILD (default build-gpu: platform=nvidia, release) when hipfile-load is missing,
# with .devkit/env.sh sourced where it exists (nlohmann_json comes from there). DATA_DIR
# (default /tmp) holds the 7.4 GB checkpoint, kept for later runs, and a second one briefly.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-gpu}
out=${1:-}
load=$build/tools/hipfile-load
[ -f "$here/.devkit/env.sh" ] && . "$here/.devkit/env.sh"
if [ ! -x "$load" ]; then
    log=${TMPDIR:-/tmp}/hipfile-safetensors-build.log
    if [ ! -f "$build/build.ninja" ]; then
        meson setup "$build" "$here" -Dplatform=nvidia --buildtype=release > "$log" 2>&1 ||
            { tail -30 "$log"; echo "bench/safetensors.sh: configure failed"; exit 1; }
    fi
    # A tree configured before nlohmann_json was on PKG_CONFIG_PATH has no such target yet.
    ninja -C "$build" tools/hipfile-load >> "$log" 2>&1 ||
        { meson setup --reconfigure "$build" "$here" >> "$log" 2>&1 && ninja -C "$build" tools/hipfile-load >> "$log" 2>&1; } ||
        { tail -30 "$log"; echo "bench/safetensors.sh: build failed (is nlohmann_json found?)"; exit 1; }
fi
exec python3 "$here/bench/safetensors_load.py" --load "$load" --dir "${DATA_DIR:-/tmp}" ${out:+--out "$out"}
