#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The `pip install .` route, checked end to end (.ci/run counts it as one test): builds the wheel
# with meson-python from this tree (pyproject.toml: -Dwheel=true), checks that it holds the
# package alone (one self-contained extension, no shared library, no rpath into the build), installs
# it into a fresh venv, and runs a write/read round trip and the pytest suite against the
# installed package from outside the tree. Exits non-zero, saying what failed, otherwise.
#
#   scripts/wheel_test.sh              platform=cpu, /usr/bin/python3 (Debian's, with
#                                      python3-mesonpy, python3-venv, python3-pytest, python3-numpy)
#   PLATFORM=nvidia PYTHON=python3 scripts/wheel_test.sh
#   WHEEL_BUILDDIR=build-wheel-pip scripts/wheel_test.sh   keeps meson-python's build folder
#                                      there, so a second run rebuilds only what changed
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
platform=${PLATFORM:-cpu}
version=$(sed -n "s/^  version: '\([^']*\)'.*/\1/p" meson.build)

work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "wheel_test: FAIL: $*" >&2; exit 1; }
start=$(date +%s)

# What the route needs from Debian (scripts/deps.sh pip installs both): said here in one line
# rather than in pip's traceback.
"$python" -c 'import mesonpy' 2>/dev/null \
  || fail "$python cannot import mesonpy, the build backend pyproject.toml names (Debian: scripts/deps.sh pip, or apt install python3-mesonpy)"
"$python" -m venv --system-site-packages "$work/venv" \
  || fail "$python -m venv (Debian: scripts/deps.sh pip, or apt install python3-venv)"
venv_py=$work/venv/bin/python

# meson-python builds in a temporary folder under TMPDIR: inside $work, so that an rpath into it
# is recognised below. Debian 12's pip 23.0 keeps one --config-settings value per key and knows
# no -C; its meson-python 0.12 knows builddir, setup-args, compile-args, install-args and
# dist-args (no build-dir, no verbosity setting). pip -v passes on Meson's and Ninja's output
# ([N/M] lines) to the log: without it pip shows one line for the minutes the build takes.
mkdir "$work/tmp"
settings=(--config-settings=setup-args=-Dplatform="$platform")
[ -n "${WHEEL_BUILDDIR:-}" ] && settings+=(--config-settings=builddir="$(realpath -m "$WHEEL_BUILDDIR")")
echo "building the wheel (the library, the HIP runtime and the extension: minutes; log: pip -v)"
TMPDIR=$work/tmp "$venv_py" -m pip wheel -v --no-build-isolation --no-index --no-deps -w "$work/dist" \
  "${settings[@]}" "$root" > "$work/pip-wheel.log" 2>&1 \
  || { tail -n 40 "$work/pip-wheel.log"; fail "pip wheel (log above)"; }
whl=$(ls "$work"/dist/hipfile-*.whl)
"$venv_py" -m zipfile -l "$whl"

# What the wheel holds: the package and its metadata, one extension, no bundled library.
names=$("$venv_py" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$whl")
outside=$(grep -v -E "^(hipfile/|hipfile-$version\.dist-info/)" <<<"$names" || true)
[ -z "$outside" ] || fail "the wheel holds files outside hipfile/ and its dist-info: $outside"
for f in __init__.py __init__.pyi _hipfile.pyi py.typed _error.py _safetensors.py _tensor.py; do
  grep -qx "hipfile/$f" <<<"$names" || fail "the wheel lacks hipfile/$f"
done
native=$(grep -E '\.so(\.|$)' <<<"$names" || true)
[ "$(wc -l <<<"$native")" -eq 1 ] && grep -qE '^hipfile/_hipfile\..*\.so$' <<<"$native" \
  || fail "the wheel should hold one native file, hipfile/_hipfile.*.so; it holds: $native"

"$venv_py" -m pip install --no-index --no-deps "$whl" > "$work/pip-install.log" 2>&1 \
  || { cat "$work/pip-install.log"; fail "pip install of the wheel"; }
ext=$(ls "$work"/venv/lib/python3*/site-packages/hipfile/_hipfile.*.so)
dynamic=$(readelf -d "$ext")
if grep -q -E 'libhip(file|-cpu|-cuda)' <<<"$dynamic"; then
  fail "the extension needs a shared hipfile or HIP runtime library: $(grep NEEDED <<<"$dynamic")"
fi
rpath=$(grep -E '\((RPATH|RUNPATH)\)' <<<"$dynamic" || true)
if grep -q -e "$work" -e "$root" <<<"$rpath"; then
  fail "the extension has an rpath into the build: $rpath"
fi
if [ "$platform" = cpu ] && [ -n "$rpath" ]; then
  fail "the platform=cpu extension needs no rpath, it has: $rpath"
fi

# Outside the tree: the installed package answers, and a write and a read go through it.
cd "$work"
export HIPCPU_DEVICE_COUNT=2 PYTHONDONTWRITEBYTECODE=1
"$venv_py" - "$work/venv" "$version" "$platform" "${HIPFILE_TEST_DIR:-/var/tmp}" <<'EOF' || fail "import and round trip"
import os, sys
import hipfile
venv, version, platform, test_dir = sys.argv[1:]
assert hipfile.__file__.startswith(venv + "/"), f"hipfile imported from {hipfile.__file__}, not the venv"
assert hipfile.__version__ == version, (hipfile.__version__, version)
assert hipfile.platform == platform, (hipfile.platform, platform)
if hipfile.device_count():
    path = os.path.join(test_dir, f"hipfile-wheel-{os.getpid()}.bin")
    data = bytes(range(256)) * 4096
    try:
        src = hipfile.DeviceBuffer(len(data))
        src.copy_from_host(data)
        with hipfile.File(path, "w") as f:
            assert f.write(src) == len(data)
        back = hipfile.DeviceBuffer(len(data))
        with hipfile.File(path) as f:
            assert f.read(back) == len(data)
        assert bytes(back.copy_to_host()) == data, "the bytes read back differ"
    finally:
        if os.path.exists(path):
            os.unlink(path)
print(f"hipfile {hipfile.__version__} (platform={hipfile.platform}, {hipfile.device_count()} devices) from {hipfile.__file__}")
EOF

# The pytest suite, copied out of the tree so that only the installed package can be imported.
mkdir "$work/tests"
cp "$root"/python/tests/*.py "$work/tests/"
"$venv_py" -m pytest -q -p no:cacheprovider -rs "$work/tests" || fail "the pytest suite against the installed wheel"
echo "wheel_test: passed in $(( $(date +%s) - start )) s ($(basename "$whl"))"
