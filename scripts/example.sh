#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job in one command: installs what is missing, configures for the detected platform
# (a GPU where one answers, hip-cpu otherwise), builds the seed guide's example, generates a
# 64 MiB file (or takes FILE) and reads it into device memory. Then model weights: writes a
# small Llama-shaped safetensors checkpoint from GPU memory (the checkpoint_to_gpu example)
# and loads it with hipfile-load, which prints what it loaded and the rate against the
# pinned host-to-device copy measured in the same run.
#   scripts/example.sh [FILE]        BUILD=DIR picks the build directory (default build)
# Every step says what it does and how long it took; builds show ninja's progress. A failing
# step stops the script with its own error and a non-zero exit. Targets are found by name
# (meson introspect), not by where their sources or headers live.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
build=${BUILD:-build}

step_name="" step_began=0
step() { step_name=$*; step_began=$SECONDS; echo "==> $*"; }
step_done() { echo "    done in $((SECONDS - step_began)) s"; }
trap 'echo "scripts/example.sh: failed: $step_name (exit $?; the error is above)" >&2' ERR

# A value of meson's configure summary (the block it prints at the end of meson setup), from
# the build's log: "" when the key is not there.
summary_value() {
  sed -n "s/^ *$1 *: //p" "$build/meson-logs/meson-log.txt" | tail -n 1
}

# The file a target of the build produces, by target name; "" when the build defines none.
target_file() {
  meson introspect "$build" --targets | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if t["name"] == sys.argv[1] and t["type"] == "executable":
        print(t["filename"][0])
        break' "$1"
}

# Where there is no GPU the device is hip-cpu's emulation in host memory: its rates say nothing
# about a GPU, and the run says so next to them.
emulation_note() {
  [ "$platform" = cpu ] || return 0
  echo "note: platform=cpu: no GPU; hip-cpu emulates the device in host memory, so every rate" \
       "(GB/s, and the ratio to the pinned copy) measures the CPU emulation, not a GPU."
}

# Why the model-weights part cannot be built, from what meson decided at configure time.
why_no_weights() {
  local json
  json=$(summary_value nlohmann_json)
  case "$json" in
    "not found"*|NO)
      echo "hipfile-load and checkpoint_to_gpu need nlohmann_json, which meson did not find" \
           "(the nlohmann-json3-dev package; then: meson setup --reconfigure $build)" ;;
    "") echo "$build defines no checkpoint_to_gpu or hipfile-load target (see meson configure $build)" ;;
    *) echo "$build defines no checkpoint_to_gpu or hipfile-load target although nlohmann_json $json" \
            "was found: are the examples and tools options on? (meson configure $build)" ;;
  esac
}

step "checking build dependencies (scripts/deps.sh)"
hipfile_install_deps
step_done
if [ ! -f "$build/build.ninja" ]; then
  step "configuring $build (meson setup)"
  meson setup "$build"
  step_done
fi
platform=$(summary_value platform)

read_example=$(target_file register_and_read)
[ -n "$read_example" ] || { echo "scripts/example.sh: $build defines no register_and_read target" \
                                 "(is the examples option on? meson configure $build)" >&2; exit 1; }
step "building register_and_read (ninja's progress below)"
meson compile -C "$build" register_and_read
step_done

file=${1:-}
checkpoint=$(mktemp "${TMPDIR:-/var/tmp}/hipfile-example-ckpt.XXXXXX")
trap 'rm -f "$checkpoint"' EXIT
if [ -z "$file" ]; then
  file=$(mktemp "${TMPDIR:-/var/tmp}/hipfile-example.XXXXXX")
  trap 'rm -f "$file" "$checkpoint"' EXIT
  step "generating $file (64 MiB of random bytes)"
  head -c $((64 << 20)) /dev/urandom > "$file"
  step_done
fi
step "reading $file into device memory (register_and_read)"
"$read_example" "$file"
step_done

echo
writer=$(target_file checkpoint_to_gpu)
loader=$(target_file hipfile-load)
if [ -z "$writer" ] || [ -z "$loader" ]; then
  echo "model weights: skipped: $(why_no_weights)"
  exit 0
fi
step "building checkpoint_to_gpu and hipfile-load (ninja's progress below; minutes on a small machine)"
meson compile -C "$build" checkpoint_to_gpu hipfile-load
step_done
step "writing a small Llama-shaped checkpoint from GPU memory (checkpoint_to_gpu)"
"$writer" "$checkpoint"
step_done
step "loading it with hipfile-load (3 timed loads, verified)"
"$loader" --reps 3 --verify "$checkpoint"
step_done
emulation_note
