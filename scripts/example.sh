#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job in one command: installs what is missing, configures for the detected platform
# (a GPU where one answers, hip-cpu otherwise), builds the seed guide's example, generates a
# 64 MiB file (or takes FILE) and reads it into device memory.
#   scripts/example.sh [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
hipfile_install_deps
build=${BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build"
ninja -C "$build" examples/c/register_and_read
file=${1:-}
if [ -z "$file" ]; then
  file=$(mktemp "${TMPDIR:-/var/tmp}/hipfile-example.XXXXXX")
  trap 'rm -f "$file"' EXIT
  head -c $((64 << 20)) /dev/urandom > "$file"
  echo "generated $file (64 MiB)"
fi
"$build/examples/c/register_and_read" "$file"
