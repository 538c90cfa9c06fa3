#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build and test dependencies that are missing (Debian 12 / Ubuntu 24.04 packages).
# Sourced by scripts/example.sh, scripts/test.sh and .ci/run; EXTRA_PACKAGES adds more.
hipfile_install_deps() {
  local need=() p
  for p in meson ninja-build g++ pkg-config libfmt-dev catch2 nlohmann-json3-dev \
           python3-dev pybind11-dev python3-pytest python3-numpy ${EXTRA_PACKAGES:-}; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  ((${#need[@]})) || return 0
  echo "installing: ${need[*]}"
  local sudo=
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
}
