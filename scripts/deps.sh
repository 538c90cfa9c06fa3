#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build and test dependencies that are missing (Debian 12 / Ubuntu 24.04 packages).
#   scripts/deps.sh         what `meson setup` and the test suites need
#   scripts/deps.sh pip     and what the README's `pip install .` route needs with Debian's
#                           packages: python3-mesonpy (the build backend pyproject.toml names;
#                           without it pip stops with a long traceback) and python3-venv
# Sourced by scripts/example.sh, scripts/test.sh and .ci/run, which call
# hipfile_install_deps [pip]; EXTRA_PACKAGES adds more (.ci/run: clang, cmake, ROCm's headers...).
hipfile_install_deps() {
  local want=(meson ninja-build g++ pkg-config libfmt-dev catch2 nlohmann-json3-dev
              python3-dev pybind11-dev python3-pytest python3-numpy) need=() p route
  for route in "$@"; do
    case $route in
      pip) want+=(python3-mesonpy python3-venv) ;;
      *) echo "deps.sh: unknown route '$route' (known: pip)" >&2; return 2 ;;
    esac
  done
  for p in "${want[@]}" ${EXTRA_PACKAGES:-}; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
  done
  ((${#need[@]})) || return 0
  echo "installing: ${need[*]}"
  local sudo=
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
}

# Run rather than sourced: install now.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  hipfile_install_deps "$@"
fi
