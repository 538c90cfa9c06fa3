#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python package on the GPU machine, in one call from the repo root:
#   python/bench/run.sh [OUTDIR]
# Configures $BUILD (default build-gpu: platform=nvidia, release) with the Python package
# enabled for the python3 on PATH (the one holding PyTorch; pybind11 is found through
# `python3 -c "import pybind11"` where it has no pkg-config file), builds it, runs the pytest
# suite (suite 'python': PyTorch tensors and CuPy arrays as buffers included), then
# load_safetensors.py. DATA_DIR (default /tmp) holds the 7.4 GB checkpoint, shared with
# bench/safetensors.sh.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build-gpu}
py=$(command -v python3)
[ -f "$here/.devkit/env.sh" ] && . "$here/.devkit/env.sh"
log=${TMPDIR:-/tmp}/hipfile-python-build.log
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$here" -Dplatform=nvidia --buildtype=release -Dpython=enabled \
        -Dpython_installation="$py" > "$log" 2>&1 || { tail -40 "$log"; echo "python/bench/run.sh: configure failed"; exit 1; }
else
    meson configure "$build" -Dpython=enabled -Dpython_installation="$py" > "$log" 2>&1 ||
        { tail -40 "$log"; echo "python/bench/run.sh: reconfigure failed"; exit 1; }
fi
ninja -C "$build" >> "$log" 2>&1 || { tail -40 "$log"; echo "python/bench/run.sh: build failed"; exit 1; }
echo "== pytest suite (meson test --suite python)"
meson test -C "$build" --suite python --print-errorlogs --num-processes 1
tests=$?
# pytest's own summary per file: how many passed and skipped (and why) where it ran.
grep -E '^(SKIPPED|FAILED)|[0-9]+ (passed|failed|skipped).* in [0-9.]+s' "$build/meson-logs/testlog.txt"
echo "== load_safetensors against safetensors.torch.load_file"
PYTHONPATH="$build/python" "$py" "$here/python/bench/load_safetensors.py" --dir "${DATA_DIR:-/tmp}" ${1:+--out "$1"}
bench=$?
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
