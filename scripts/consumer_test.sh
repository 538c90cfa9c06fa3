#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# consumer_test.sh BUILD: installs BUILD into a fresh staging tree and builds programs against it
# the way users do: the CMake project test/consumer (find_package(hipfile CONFIG), hipfile::hipfile,
# hip::hipfile, hipfile::hipfile++), a pkg-config build of the same C program and a Meson project
# that uses hipfile as a subproject; runs them, checks the man pages and that nothing lands in
# include/hip/ (ROCm's folder). Exit 0: all fine.
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage
meson install -C "$build" --no-rebuild --destdir "$stage" --quiet
prefix=$stage$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
libdir=$(find "$prefix" -name 'libhipfile.so.0' -printf '%h\n' -quit)
scratch=${HIPFILE_TEST_DIR:-/var/tmp}/hipfile-consumer.$$
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }

step "installed layout"
[ ! -e "$prefix/include/hip" ] || bad "something was installed into include/hip (ROCm's folder)"
[ -f "$libdir/cmake/hipfile/hipfileConfig.cmake" ] || bad "no hipfileConfig.cmake"
[ -f "$libdir/cmake/hipfile/hipfileConfigVersion.cmake" ] || bad "no hipfileConfigVersion.cmake"
for tool in hipfile-check hipfile-io hipfile-cp hipfile-stats; do
  [ -f "$prefix/share/man/man1/$tool.1" ] || bad "no man page for $tool"
done

step "CMake consumer"
cmake -S "$root/test/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; bad "cmake configure"; }
grep -q "hipfile 0.5" "$work/cmake.log" || bad "find_package did not report hipfile 0.5"
cmake --build "$work/cmake" -j 2 > "$work/build.log" 2>&1 || { cat "$work/build.log"; bad "cmake build"; }
for exe in consumer_c consumer_upstream_ns consumer_cxx; do
  LD_LIBRARY_PATH=$libdir "$work/cmake/$exe" "$scratch" || bad "$exe"
done
# A version above ours is refused by the version file.
printf 'cmake_minimum_required(VERSION 3.13)\nproject(p C)\nfind_package(hipfile 1.0 CONFIG REQUIRED)\n' \
  > "$work/CMakeLists.txt"
if cmake -S "$work" -B "$work/too-new" -DCMAKE_PREFIX_PATH="$prefix" > "$work/too-new.log" 2>&1; then
  bad "find_package(hipfile 1.0) succeeded against 0.5"
fi

step "pkg-config consumer"
export PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$stage
cc -std=c11 "$root/test/consumer/consumer.c" -o "$work/pc_consumer" \
  $(pkg-config --cflags --libs hipfile) || bad "pkg-config build"
LD_LIBRARY_PATH=$libdir "$work/pc_consumer" "$scratch" || bad "pkg-config consumer"

step "Meson subproject consumer"
# hipfile as a subproject builds the library and hip-cpu only: no tests, tools, examples or
# benches, no fmt, and <hipfile.h> resolves.
mkdir -p "$work/sub/subprojects"
ln -s "$root" "$work/sub/subprojects/hipfile"
cat > "$work/sub/meson.build" <<MESON
project('consumer', 'c', 'cpp', default_options: ['c_std=c11'])
executable('consumer', '$root/test/consumer/consumer.c', dependencies: dependency('hipfile'))
MESON
platform=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "platform"))')
if meson setup "$work/sub/build" "$work/sub" --buildtype=debug -Dhipfile:platform="$platform" \
    > "$work/sub.log" 2>&1; then
  targets=$(meson introspect "$work/sub/build" --targets | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  [ "$targets" -le 4 ] || bad "the subproject defines $targets targets (want the library, its core, hip-cpu and the consumer)"
  tests=$(meson test -C "$work/sub/build" --list 2>&1 || true)
  case $tests in *"No tests defined"*) ;; *) bad "the subproject registers tests: $tests" ;; esac
  ! grep -q "Dependency fmt" "$work/sub.log" || bad "the subproject looked for fmt"
  ninja -C "$work/sub/build" -j 2 > "$work/sub-build.log" 2>&1 || { tail -n 30 "$work/sub-build.log"; bad "subproject build"; }
  "$work/sub/build/consumer" "$scratch" || bad "subproject consumer"
else
  cat "$work/sub.log"; bad "meson setup of the subproject consumer"
fi

[ "$fail" -eq 0 ] && echo "consumer test: all OK"
exit "$fail"
