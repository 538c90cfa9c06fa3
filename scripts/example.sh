#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job in one command: installs what is missing, configures for the detected platform
# (a GPU where one answers, hip-cpu otherwise), builds the seed guide's example, generates a
# 64 MiB file (or takes FILE) and reads it into device memory. Then model weights: writes a
# small Llama-shaped safetensors checkpoint from GPU memory (examples/cxx/checkpoint_to_gpu)
# and loads it with hipfile-load, which prints what it loaded and the rate against the
# pinned host-to-device copy measured in the same run.
#   scripts/example.sh [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
hipfile_install_deps
build=${BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build"
ninja -C "$build" examples/c/register_and_read
weights=yes
ninja -C "$build" examples/cxx/checkpoint_to_gpu tools/hipfile-load >/dev/null 2>&1 || weights=no
file=${1:-}
checkpoint=$(mktemp "${TMPDIR:-/var/tmp}/hipfile-example-ckpt.XXXXXX")
trap 'rm -f "$checkpoint"' EXIT
if [ -z "$file" ]; then
  file=$(mktemp "${TMPDIR:-/var/tmp}/hipfile-example.XXXXXX")
  trap 'rm -f "$file" "$checkpoint"' EXIT
  head -c $((64 << 20)) /dev/urandom > "$file"
  echo "generated $file (64 MiB)"
fi
"$build/examples/c/register_and_read" "$file"
if [ "$weights" = no ]; then
  echo "model weights: skipped (hipfile-load needs nlohmann_json: the nlohmann-json3-dev package)"
  exit 0
fi
echo
"$build/examples/cxx/checkpoint_to_gpu" "$checkpoint"
"$build/tools/hipfile-load" --reps 3 --verify "$checkpoint"
