#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh LOAD MAKE_PY WORKDIR: hipfile-load on generated checkpoints (one file with every dtype,
# shards, an index), on one and two GPUs, with --only, --list, --json, --reps, --cold, --direct and
# --write; --verify passes, and catches one byte changed in GPU memory (HIPFILE_LOAD_CORRUPT),
# exiting 1 with the tensor, the byte and the file offset.
set -u
load=$1 make=$2
dir=$3/load-run.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
python3 "$make" "$dir" || exit 1
ck=$dir/single.safetensors
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# ok NAME COMMAND...: exit 0, output in $dir/out.
ok() {
    name=$1; shift
    "$@" > "$dir/out" 2> "$dir/err" || { bad "$name: exit $?"; cat "$dir/err"; return 1; }
}
# json_has KEY=VALUE...: the JSON in $dir/out has these values (VALUE in JSON, e.g. 26 or "hot").
json_has() {
    python3 - "$dir/out" "$@" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    if doc.get(k) != json.loads(v):
        print(f"FAIL: json {k} = {doc.get(k)!r}, want {v}")
        sys.exit(1)
for k in ("seconds_best", "gbps_best", "pinned_h2d_gbps", "vs_pinned_h2d", "read_seconds", "allocate_seconds"):
    if not isinstance(doc.get(k), (int, float)) or doc[k] < 0:
        print(f"FAIL: json {k} = {doc.get(k)!r}")
        sys.exit(1)
# The breakdown of the first and the best pass: parts that add up to the pass's own time (the
# JSON keeps 6 digits; a pass of a test checkpoint takes microseconds).
parts = ("plan", "allocate", "register", "read", "finish")
for name in ("first_pass", "best_pass"):
    b = doc.get(name) or {}
    if not all(isinstance(b.get(k), (int, float)) and b[k] >= 0 for k in parts + ("total",)) or \
            abs(sum(b[k] for k in parts) - b["total"]) > 1e-3 * b["total"] + 1e-5 or \
            not all(v["count"] >= 0 and v["seconds"] >= 0 for v in b.get("library", {}).values()) or \
            "driver_open" not in b.get("library", {}):
        print(f"FAIL: json {name} = {b!r}")
        sys.exit(1)
if abs(doc["first_pass"]["total"] - doc["seconds"][0]) > 0.05 * doc["seconds"][0] + 1e-4:
    print(f"FAIL: first_pass total {doc['first_pass']['total']} is not the first pass's {doc['seconds'][0]} s")
    sys.exit(1)
if not all(isinstance(doc.get("startup", {}).get(k), (int, float)) for k in ("context", "open_checkpoint", "driver_open", "ceiling")):
    print(f"FAIL: json startup = {doc.get('startup')!r}")
    sys.exit(1)
PY
}

ok "single --verify" "$load" --verify --list "$ck" &&
    { grep -q "^loaded:     26 tensors, .* onto GPU 0 in 1 read (1 allocation), hot$" "$dir/out" || bad "single: loaded line: $(cat "$dir/out")"
      grep -q "^verify:     passed (26 tensors compared with pread)$" "$dir/out" || bad "single: verify line"
      grep -q "^rate:       .* GB/s = .*x the pinned host-to-device copy (.* GB/s, measured in this run)$" "$dir/out" || bad "single: rate line"
      grep -q "^  t.F6_E2M3  F6_E2M3  \[8\]  GPU 0  6 bytes$" "$dir/out" || bad "single: --list F6 line"
      grep -q "^  empty  F32  \[0, 5\]  GPU 0  0 bytes$" "$dir/out" || bad "single: --list empty line"
      grep -q "^  scalar  F64  \[\]  GPU 0  8 bytes$" "$dir/out" || bad "single: --list scalar line"; }
ok "single --json" "$load" --json --reps 2 --pause 0 --verify "$ck" &&
    json_has tool='"hipfile-load"' tensors=26 reads=1 allocations=1 reps=2 cache='"hot"' verify='"passed"' status='"ok"' devices='[0]'
# Neighbours share a read; tensors a few hundred bytes apart too (the gap is read, not skipped).
ok "--only" "$load" --json --only model.layers.1,one "$ck" && json_has tensors=2 reads=1 allocations=1 bytes=463
ok "--only apart" "$load" --json --only t.BOOL,model.layers.10 "$ck" && json_has tensors=2 reads=1 bytes=13
ok "--parallel 4" "$load" --json --parallel 4 --verify "$ck" && json_has reads=4 parallel=4 verify='"passed"'
ok "index" "$load" --json --verify "$dir/model.safetensors.index.json" && json_has tensors=4 reads=2 allocations=2 verify='"passed"'
ok "shards --cold --direct" "$load" --json --cold --direct --verify "$dir/model-00001-of-00002.safetensors" "$dir/model-00002-of-00002.safetensors" &&
    json_has tensors=4 cache='"cold"' direct=true verify='"passed"'
# Meson sets HIPCPU_DEVICE_COUNT=2 for every platform, so only the tool's own answer says that a
# real machine has one GPU; anything else (a cpu build included) must pass the two-device runs.
if ! "$load" --device 1 --json "$ck" 2>&1 >/dev/null | grep -q 'GPU 1 does not exist (1 found)'; then
    ok "--devices 0,1" "$load" --devices 0,1 --json --verify "$dir/model.safetensors.index.json" &&
        json_has devices='[0, 1]' allocations=2 verify='"passed"'
    ok "--device 1" "$load" --device 1 --json --verify "$ck" && json_has devices='[1]' allocations=1 reads=1 verify='"passed"'
else
    echo "skipped: --devices 0,1 (one GPU)"
fi
# --write: the tensors back out of GPU memory; hipfile-load reads the copy identically.
ok "--write" "$load" --write "$dir/copy.safetensors" "$ck" && grep -q "^write:      .*copy.safetensors in " "$dir/out" ||
    bad "--write: no write line"
ok "load the copy" "$load" --verify --json "$dir/copy.safetensors" && json_has tensors=26 verify='"passed"'
ok "--write of the copy" "$load" --write "$dir/copy2.safetensors" "$dir/copy.safetensors" &&
    { cmp -s "$dir/copy.safetensors" "$dir/copy2.safetensors" || bad "a written checkpoint written again differs"; }

# An index whose weight_map is empty: a checkpoint of no tensors, and --write writes what
# safetensors writes for an empty dict, "{}" padded to 8 bytes behind its 8-byte length.
printf '{"weight_map":{}}' > "$dir/empty.index.json"
ok "empty index --write" "$load" --write "$dir/empty.safetensors" "$dir/empty.index.json" &&
    { grep -q "^loaded:     0 tensors, " "$dir/out" || bad "empty index: loaded line: $(cat "$dir/out")"
      printf '\010\0\0\0\0\0\0\0{}      ' | cmp -s - "$dir/empty.safetensors" ||
          { bad "empty index: the written file is not the empty checkpoint:"; od -c "$dir/empty.safetensors"; }; }
ok "load the empty copy" "$load" --json "$dir/empty.safetensors" && json_has tensors=0 bytes=0

# Names and metadata that hold control sequences are printed escaped; the JSON stays valid JSON
# (a path that is not UTF-8 included) and carries the escapes as JSON escapes.
esc=$(printf '\033') bel=$(printf '\007')
ok "hostile --list" "$load" --list "$dir/hostile.safetensors" &&
    { if grep -q "[$esc$bel]" "$dir/out"; then bad "hostile: an ESC or BEL byte reached stdout"; fi
      grep -q '^  \\x1b\[31m  U8  \[3\]  GPU 0  3 bytes$' "$dir/out" || bad "hostile: the ESC name: $(cat "$dir/out")"
      grep -q '^  x\\u202ey  U8  \[2\]  GPU 0  2 bytes$' "$dir/out" || bad "hostile: the override name: $(cat "$dir/out")"
      grep -q '; metadata note=a\\x07b\\x1b\]0;owned\\x07c\\u009bd)$' "$dir/out" || bad "hostile: metadata: $(cat "$dir/out")"; }
odd=$dir/$(printf 'odd\377\033.safetensors')
cp "$ck" "$odd"
ok "--json of a path that is not UTF-8" "$load" --json "$odd" &&
    python3 - "$dir/out" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
if not doc["files"][0].endswith("odd\ufffd\x1b.safetensors"):
    print(f"FAIL: json files = {doc['files']!r}")
    sys.exit(1)
PY

# --verify catches a byte that differs, in the middle of a 3 MiB tensor and in a 1-byte one.
for spec in big:1234567 one:0 model.layers.1.w:461; do
    HIPFILE_LOAD_CORRUPT=$spec "$load" "$ck" > "$dir/out" 2> "$dir/err" || bad "$spec without --verify: exit $?"
    HIPFILE_LOAD_CORRUPT=$spec "$load" --verify "$ck" > "$dir/out" 2> "$dir/err"; rc=$?
    [ "$rc" -eq 1 ] || bad "$spec --verify: exit $rc, want 1"
    name=${spec%%:*} byte=${spec##*:}
    grep -q "^hipfile-load: verify: tensor '$name' differs at byte $byte (file offset [0-9]* of $ck): GPU has 0x.., the file 0x..$" "$dir/err" ||
        { bad "$spec: stderr:"; cat "$dir/err"; }
done
[ "$fail" -eq 0 ] && echo "ok: hipfile-load runs"
exit $fail
