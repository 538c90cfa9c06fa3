#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs what is missing, configures (once) and builds BUILD (default: build)
# with any meson setup options given, then runs every suite. .ci/run calls it for each platform.
#   scripts/test.sh                      # the detected platform
#   BUILD=build-cpu scripts/test.sh -Dplatform=cpu
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
hipfile_install_deps || { echo "package installation failed"; exit 1; }
build=${BUILD:-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$@" || exit 1
fi
ninja -C "$build" -j "${JOBS:-$(nproc)}" || exit 1
meson test -C "$build" --print-errorlogs --num-processes "${JOBS:-$(nproc)}"
