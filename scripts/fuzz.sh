#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (clang, platform=cpu, ASan+UBSan) and runs each on a copy of its
# corpus, test/fuzz/corpus-TARGET, with its dictionary test/fuzz/TARGET.dict where there is one.
# New inputs go to the copy, so the tree does not change. Targets: c_api (the C API), header
# (safetensors parse_header/read_header), index (Checkpoint::open_index), load (Checkpoint::open
# then load() onto a hip-cpu device, as Python does).
#   scripts/fuzz.sh                                       # every target, 120 s each
#   FUZZ_TARGET=header FUZZ_SECONDS=600 scripts/fuzz.sh   # one target (or a space-separated list)
#   FUZZ_TARGET=header FUZZ_RUNS=10000000 scripts/fuzz.sh # a run count instead of a time
#   FUZZ_REPLAY=1 scripts/fuzz.sh                         # every corpus input once, nothing new
#   FUZZ_ARGS="-fork=2 -ignore_crashes=1" ...             # more libFuzzer options (here: go on past crashes)
# Prints one line per target, "fuzz TARGET: N executions, cov C, ft F, corpus K, M findings
# (exit R)", and exits non-zero on any crash, sanitizer report, leak, timeout or out-of-memory.
# A finding is kept in FUZZ_FINDINGS (default BUILD/fuzz-findings/TARGET/), and the commands
# that reproduce and minimise it are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-fuzz}
all_targets="c_api header index load"
targets=${FUZZ_TARGET:-$all_targets}
[ "$targets" = all ] && targets=$all_targets
seconds=${FUZZ_SECONDS:-120}

for t in $targets; do
  case " $all_targets " in *" $t "*) ;; *) echo "fuzz: unknown target '$t' (one of: $all_targets)"; exit 2 ;; esac
done
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dplatform=cpu -Dfuzz=true -Dtests=false -Dtools=false \
    -Dexamples=false -Dbench=disabled -Dpython=disabled -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
exes=""
for t in $targets; do exes="$exes test/fuzz/hipfile_${t}_fuzz"; done
ninja -C "$build" -j "${JOBS:-$(nproc)}" $exes || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/hipfile-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export HIPFILE_TEST_DIR=${HIPFILE_TEST_DIR:-$work}

# The options of target $1: what ASan may report, and input lengths. The C API keeps poisoned
# lanes and retired flag words on purpose, so leak checking is off there; the safetensors
# targets free everything per input, so a leak is a finding. Their inputs may reach 256 KiB at
# once (no gradual length limit), so that nesting deep enough to exhaust the stack can be built.
target_env() {
  case $1 in
    c_api) echo "detect_leaks=0" ;;
    *) echo "detect_leaks=1" ;;
  esac
}
length_args() {
  case $1 in
    c_api) echo "-max_len=4096" ;;
    *) echo "-max_len=262144 -len_control=0" ;;
  esac
}
stack_kb() {
  case $1 in
    c_api) ulimit -s ;;
    *) echo "${FUZZ_STACK_KB:-1024}" ;;
  esac
}

# run_target T: one libFuzzer run of target T; prints its summary line, returns non-zero on a finding.
run_target() {
  local t=$1 exe=$build/test/fuzz/hipfile_$1_fuzz
  local corpus=$work/$t/corpus log=$work/$t/log
  local findings=${FUZZ_FINDINGS:-$build/fuzz-findings}/$t
  mkdir -p "$corpus" "$findings" "$work/$t/tmp"
  cp "test/fuzz/corpus-$t"/* "$corpus/"
  local extra args=(-timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" $(length_args "$t")
              -artifact_prefix="$findings/" -print_final_stats=1)
  [ -f "test/fuzz/$t.dict" ] && args+=(-dict="test/fuzz/$t.dict")
  read -r -a extra <<< "${FUZZ_ARGS:-}"
  args+=("${extra[@]}")
  if [ "${FUZZ_REPLAY:-0}" = 1 ]; then
    args+=(-runs=0)  # every input once (to load the corpus), then stop: deterministic
  elif [ -n "${FUZZ_RUNS:-}" ]; then
    args+=(-runs="$FUZZ_RUNS")
  else
    args+=(-max_total_time="$seconds")
  fi
  local before
  before=$(find "$findings" -type f | wc -l)
  (ulimit -s "$(stack_kb "$t")" && TMPDIR=$work/$t/tmp ASAN_OPTIONS=${ASAN_OPTIONS:-$(target_env "$t")} \
    exec "$exe" "${args[@]}" "$corpus") > "$log" 2>&1
  local rc=$?
  report "$t" "$rc" "$log" "$findings" "$before" "$exe"
}

# report T RC LOG FINDINGS BEFORE EXE: the summary line, and for each new finding its path and
# the commands that reproduce and minimise it.
report() {
  local t=$1 rc=$2 log=$3 findings=$4 before=$5 exe=$6
  local runs cov ft size new
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  [ -n "$runs" ] || runs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')  # no final stats after a crash
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*')
  size=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*')
  new=$(( $(find "$findings" -type f | wc -l) - before ))
  if [ "$rc" -ne 0 ] || [ "$new" -ne 0 ]; then
    grep -E -m 3 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant broken|^SUMMARY' "$log"
    grep -E -m 6 '^ +#[0-5] ' "$log" | cut -c 1-200  # the innermost frames of the first report
  fi
  echo "fuzz $t: ${runs:-0} executions, cov ${cov:-0}, ft ${ft:-0}, corpus ${size:-0}, $new findings (exit $rc)"
  local f
  for f in $(grep -o 'Test unit written to .*' "$log" | sed 's/^Test unit written to //' | sort -u); do
    echo "finding: $f"
    local run="ulimit -s $(stack_kb "$t"); ASAN_OPTIONS=$(target_env "$t") $exe"
    echo "  reproduce: ($run $f)"
    echo "  minimise:  ($run -minimize_crash=1 -max_total_time=60 -exact_artifact_path=$f.min $f)"
  done
  [ "$rc" -eq 0 ] && [ "$new" -eq 0 ]
}

status=0
for t in $targets; do run_target "$t" || status=1; done
exit $status
