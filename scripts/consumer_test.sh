#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# consumer_test.sh BUILD: installs BUILD into a fresh staging tree and uses it from outside the
# source tree the way the README tells users to, each route with only what the README gives it:
#   pkg-config  the hipFile guide's program (test/consumer/guide.c: the "Complete example" of
#               the guide "Register a file and a buffer", unchanged), the README's C program, the C
#               examples and test/consumer/consumer.c, built with `cc PROG.c $(pkg-config --cflags
#               --libs hipfile)` (and again with -std=c99 -pedantic -Werror); they run with
#               LD_LIBRARY_PATH=PREFIX/LIBDIR or an -rpath, as for any prefix ldconfig does not know
#   loader      test/consumer/loader.cpp with `pkg-config --cflags --libs hipfile-safetensors`,
#               and no installed header that includes nlohmann-json
#   CMake       test/consumer (find_package(hipfile CONFIG): hipfile::hipfile, hip::hipfile,
#               hipfile::hipfile++, hipfile::safetensors, the guide's program); run with the build-tree rpath CMake
#               gives, no LD_LIBRARY_PATH
#   tools       the installed hipfile-check and hipfile-cp, found through their $ORIGIN rpath
#   Python      `import hipfile` and a round trip with PYTHONPATH=PREFIX/lib/python3/dist-packages
#   Meson       a project with subprojects/hipfile (a link to this tree) and subprojects/
#               hipfile.wrap, no PKG_CONFIG_PATH: dependency('hipfile') is the subproject, which
#               builds the library, the loader and hip-cpu only (no tests, tools, fmt or Python
#               extension), and dependency('hipfile-safetensors') is the subproject's loader
# Also checks the man pages and that nothing lands in include/hip/ (ROCm's folder). Prints each
# stage's time; the last line sums up. Exit 0: all fine. JOBS: ninja's parallelism (default 2).
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-consumer.XXXXXX")
scratch_dir=$(mktemp -d "${HIPFILE_TEST_DIR:-/var/tmp}/hipfile-consumer.XXXXXX")  # a disk, for O_DIRECT
trap 'rm -rf "$work" "$scratch_dir"' EXIT
scratch=$scratch_dir/file  # written, read back and removed by consumer.c and the Python check
data=$scratch_dir/data     # read by register_and_read and hipfile-cp
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH PYTHONPATH
fail=0
times=()
stage_start=0 stage_name=
step() {  # step TAG [WHAT]: TAG names the stage in the times line
  [ -z "$stage_name" ] || times+=("$stage_name $(( $(date +%s) - stage_start )) s")
  stage_name=$1 stage_start=$(date +%s)
  [ "$1" = end ] || echo "--- $1: $2"
}
bad() { echo "FAIL: $*"; fail=1; }
option() {
  meson introspect "$build" --buildoptions | "$python" -c \
    'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
start=$(date +%s)

step install "meson install --destdir"
stage=$work/stage
meson install -C "$build" --no-rebuild --destdir "$stage" --quiet
prefix=$stage$(option prefix)
libdir=$(find "$prefix" -name 'libhipfile.so.0' -printf '%h\n' -quit)
platform=$(option platform)
examples=("$root"/examples/c/*.c)

step layout "the installed files"
[ ! -e "$prefix/include/hip" ] || bad "something was installed into include/hip (ROCm's folder)"
[ -f "$libdir/cmake/hipfile/hipfileConfig.cmake" ] || bad "no hipfileConfig.cmake"
[ -f "$libdir/cmake/hipfile/hipfileConfigVersion.cmake" ] || bad "no hipfileConfigVersion.cmake"
for tool in hipfile-check hipfile-io hipfile-cp hipfile-stats hipfile-load; do
  [ -f "$prefix/share/man/man1/$tool.1" ] || bad "no man page for $tool"
done

# The README's route for a prefix that is not the system's: PKG_CONFIG_PATH to build, then
# LD_LIBRARY_PATH (or an -rpath) to run. PKG_CONFIG_SYSROOT_DIR only because this tree is staged
# with DESTDIR: hipfile.pc names the real prefix.
step pkg-config "the guide's program, the C examples, consumer.c"
pc() { PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage pkg-config "$@"; }
# The README's C program, cut from the README as a user would copy it.
"$python" - "$root/README.md" "$work/readme.c" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"^## C\n.*?^```c\n(.*?)^```", text, re.S | re.M)
open(sys.argv[2], "w").write(block.group(1))
EOF
pc_flags=$(pc --cflags --libs hipfile)
for src in "$root/test/consumer/guide.c" "$work/readme.c" "${examples[@]}" "$root/test/consumer/consumer.c"; do
  name=$(basename "$src" .c)
  cc "$src" -o "$work/pc_$name" $pc_flags || bad "cc $name.c \$(pkg-config --cflags --libs hipfile)"
  cc -std=c99 -pedantic -Wall -Wextra -Werror -c "$src" -o "$work/pc_$name.o" $pc_flags \
    || bad "cc -std=c99 -pedantic -Werror $name.c"
done
# The guide's program opens /path/to/file: it runs (the library loads) and says it cannot open it.
if [ ! -e /path/to/file ] && [ -x "$work/pc_guide" ]; then
  out=$(LD_LIBRARY_PATH=$libdir "$work/pc_guide" 2>&1) && rc=0 || rc=$?
  [ "$rc" -eq 1 ] && grep -q "Could not open file" <<<"$out" || bad "the guide's program (exit $rc): $out"
fi
head -c 3000000 /dev/urandom > "$data"
if [ -x "$work/pc_register_and_read" ]; then
  out=$(LD_LIBRARY_PATH=$libdir "$work/pc_register_and_read" "$data" 2>&1) || bad "register_and_read: $out"
  grep -q "read 3000000 of 3000000 bytes" <<<"$out" || bad "register_and_read said: $out"
fi
if [ -x "$work/pc_readme" ]; then
  out=$(LD_LIBRARY_PATH=$libdir "$work/pc_readme" "$data" 2>&1) || bad "the README's C program: $out"
  grep -q "read 1048576 bytes into GPU memory" <<<"$out" || bad "the README's C program said: $out"
fi
LD_LIBRARY_PATH=$libdir "$work/pc_consumer" "$scratch" || bad "pkg-config consumer"
# Without LD_LIBRARY_PATH it cannot find the library, and an -rpath is the other way.
if "$work/pc_consumer" "$scratch" > /dev/null 2>&1; then
  echo "note: a pkg-config program ran without LD_LIBRARY_PATH: this machine has a hipfile installed"
fi
cc "$root/test/consumer/consumer.c" -o "$work/pc_rpath" $pc_flags -Wl,-rpath,"$libdir" \
  && "$work/pc_rpath" "$scratch" || bad "pkg-config consumer linked with -Wl,-rpath"

step loader "the checkpoint loader through pkg-config"
[ -e "$libdir/libhipfile-safetensors.so.0" ] || bad "no libhipfile-safetensors.so.0"
[ -f "$prefix/include/hipfile-safetensors/safetensors.hpp" ] || bad "no <hipfile-safetensors/safetensors.hpp>"
[ ! -e "$prefix/include/hipfile++/safetensors.hpp" ] || bad "the old <hipfile++/safetensors.hpp> is installed"
! grep -rqE '#include *<nlohmann' "$prefix/include" || bad "an installed header includes nlohmann-json"
c++ -std=c++20 "$root/test/consumer/loader.cpp" -o "$work/pc_loader" \
  $(pc --cflags --libs hipfile-safetensors) || bad "c++ loader.cpp \$(pkg-config --cflags --libs hipfile-safetensors)"
LD_LIBRARY_PATH=$libdir "$work/pc_loader" "$scratch" || bad "pkg-config loader consumer"

step CMake "hipfile::hipfile, hip::hipfile, hipfile::hipfile++, hipfile::safetensors, the guide's program, the C examples"
cmake -S "$root/test/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; bad "cmake configure"; }
grep -q "hipfile 0.5" "$work/cmake.log" || bad "find_package did not report hipfile 0.5"
cmake --build "$work/cmake" -j "$jobs" > "$work/build.log" 2>&1 || { cat "$work/build.log"; bad "cmake build"; }
# CMake links an imported SHARED target by its full path and puts that folder into the
# build-tree RUNPATH: the programs run as built, with no LD_LIBRARY_PATH.
for exe in consumer_c consumer_upstream_ns consumer_cxx consumer_loader; do
  "$work/cmake/$exe" "$scratch" || bad "$exe (CMake build-tree rpath)"
done
"$work/cmake/cmake_register_and_read" "$data" > /dev/null || bad "register_and_read (CMake)"
[ -x "$work/cmake/cmake_guide" ] || bad "the guide's program did not build with CMake"
# A version above ours is refused by the version file.
printf 'cmake_minimum_required(VERSION 3.13)\nproject(p C)\nfind_package(hipfile 1.0 CONFIG REQUIRED)\n' \
  > "$work/CMakeLists.txt"
if cmake -S "$work" -B "$work/too-new" -DCMAKE_PREFIX_PATH="$prefix" > "$work/too-new.log" 2>&1; then
  bad "find_package(hipfile 1.0) succeeded against 0.5"
fi

step tools "the installed hipfile-check and hipfile-cp (their \$ORIGIN rpath)"
"$prefix/bin/hipfile-check" --help > /dev/null || bad "hipfile-check --help"
readelf -d "$prefix/bin/hipfile-check" | grep -q 'R.*PATH.*\$ORIGIN/\.\./' \
  || bad "hipfile-check has no \$ORIGIN rpath: $(readelf -d "$prefix/bin/hipfile-check" | grep PATH)"
"$prefix/bin/hipfile-cp" "$data" "$data.copy" > /dev/null && cmp -s "$data" "$data.copy" \
  || bad "hipfile-cp through GPU memory"

step Python "import hipfile from PREFIX/lib/python3/dist-packages"
site=$(dirname "$(find "$prefix" -path '*/hipfile/__init__.py' -printf '%h\n' -quit)")
[ "$site" = "$prefix/lib/python3/dist-packages" ] || echo "note: the package went to ${site#"$stage"} (not Debian's layout)"
if [ "$site" = . ]; then
  bad "no Python package was installed (-Dpython=disabled, or no pybind11?)"
else
  PYTHONPATH=$site PYTHONDONTWRITEBYTECODE=1 "$python" - "$site" "$scratch" <<'EOF' || bad "import hipfile"
import sys
import hipfile
site, path = sys.argv[1:]
assert hipfile.__file__.startswith(site + "/"), hipfile.__file__
data = bytes(range(256)) * 1024
buf = hipfile.DeviceBuffer(len(data))
buf.copy_from_host(data)
with hipfile.File(path, "w") as f:
    assert f.write(buf) == len(data)
back = hipfile.DeviceBuffer(len(data))
with hipfile.File(path) as f:
    assert f.read(back) == len(data)
assert bytes(back.copy_to_host()) == data
print(f"hipfile {hipfile.__version__} ({hipfile.platform}) from PYTHONPATH: 256 KiB round trip OK")
EOF
fi

# subprojects/hipfile.wrap, as doc/building.md gives it; the folder it would fetch into is already
# there (a link to this tree), so Meson uses it as it is: the [provide] section is what makes
# dependency('hipfile') the subproject. --force-fallback-for: even where a hipfile is installed.
step Meson-subproject "subprojects/hipfile.wrap, no pkg-config"
sub=$work/sub
mkdir -p "$sub/subprojects"
ln -s "$root" "$sub/subprojects/hipfile"
cat > "$sub/subprojects/hipfile.wrap" <<'WRAP'
[wrap-git]
url = /path/to/hipfile
revision = head

[provide]
dependency_names = hipfile, hipfile-safetensors
WRAP
cp "$root/test/consumer/guide.c" "$root/test/consumer/consumer.c" "$root/test/consumer/loader.cpp" "${examples[@]}" "$sub/"
{
  echo "project('consumer', 'c', 'cpp', default_options: ['c_std=c99', 'cpp_std=c++20', 'warning_level=3', 'werror=true'])"
  echo "hipfile_dep = dependency('hipfile')"
  for src in guide.c consumer.c "${examples[@]##*/}"; do
    echo "executable('${src%.c}', '$src', dependencies: hipfile_dep)"
  done
  echo "executable('consumer_loader', 'loader.cpp', dependencies: dependency('hipfile-safetensors'))"
} > "$sub/meson.build"
if meson setup "$sub/build" "$sub" --buildtype=debug --force-fallback-for=hipfile \
    -Dhipfile:platform="$platform" > "$work/sub.log" 2>&1; then
  grep -q "Executing subproject hipfile" "$work/sub.log" || bad "hipfile was not built as a subproject"
  grep -qE "Dependency hipfile found: YES .*\(overridden\)" "$work/sub.log" \
    || bad "dependency('hipfile') was not the subproject's: $(grep 'Dependency hipfile' "$work/sub.log")"
  ! grep -q "Dependency fmt" "$work/sub.log" || bad "the subproject looked for fmt"
  ! grep -qi "pybind11" "$work/sub.log" || bad "the subproject looked for pybind11"
  targets=$(meson introspect "$sub/build" --targets | "$python" -c \
    'import json,sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin))))')
  echo "targets: $targets"
  grep -qE "Dependency hipfile-safetensors found: YES .*\(overridden\)" "$work/sub.log" \
    || bad "dependency('hipfile-safetensors') was not the subproject's"
  want="consumer consumer_loader guide hip-cpu hipfile hipfile-core hipfile-safetensors hipfile-safetensors-core $(for s in "${examples[@]##*/}"; do echo "${s%.c}"; done)"
  [ "$targets" = "$(tr ' ' '\n' <<<"$want" | sort | xargs)" ] \
    || bad "the subproject defines other targets than the library, the loader, their cores, hip-cpu and the programs"
  tests=$(meson test -C "$sub/build" --list 2>&1 || true)
  case $tests in *"No tests defined"*) ;; *) bad "the subproject registers tests: $tests" ;; esac
  ninja -C "$sub/build" -j "$jobs" > "$work/sub-build.log" 2>&1 || { tail -n 30 "$work/sub-build.log"; bad "subproject build"; }
  ls "$sub"/build/subprojects/hipfile/lib/libhipfile.so.0 > /dev/null || bad "no libhipfile.so.0 built in the subproject"
  "$sub/build/consumer" "$scratch" || bad "subproject consumer"
  "$sub/build/register_and_read" "$data" > /dev/null || bad "subproject register_and_read"
  "$sub/build/consumer_loader" "$scratch" || bad "subproject loader consumer"
  # -Dhipfile:python=enabled asks for the extension; it is then defined (configured only).
  if meson setup "$sub/build-py" "$sub" --force-fallback-for=hipfile -Dhipfile:platform="$platform" \
      -Dhipfile:python=enabled > "$work/sub-py.log" 2>&1; then
    meson introspect "$sub/build-py" --targets | grep -q '"name": "_hipfile' \
      || bad "-Dhipfile:python=enabled defined no Python extension"
  else
    tail -n 20 "$work/sub-py.log"; bad "meson setup with -Dhipfile:python=enabled"
  fi
else
  cat "$work/sub.log"; bad "meson setup of the subproject consumer"
fi

step end
echo "stage times: $(printf '%s, ' "${times[@]}" | sed 's/, $//')"
[ "$fail" -eq 0 ] && echo "consumer test: all OK in $(( $(date +%s) - start )) s (pkg-config, loader, CMake, tools, Python, Meson subproject)"
exit "$fail"
