#!/bin/sh
# SPDX-License-Identifier: MIT
# load_slices.sh LOAD MAKE_PY WORKDIR: hipfile-load --slice and --rank on the checkpoints of
# make_slice_checkpoints.py. A slice of each dimension (0 to 3) of tensors of up to 4
# dimensions passes --verify, and its --json bytes and bytes_read are the slices' bytes and
# the rows they span, computed here from the header; --list shows each slice; a byte changed
# in GPU memory inside a strided slice is found at its file offset. Ranks of world sizes 2 and
# 3 pass --verify, and under the column and vocabulary layouts their bytes add up to the
# checkpoint's bytes (under row, 1-D tensors are on every rank).
set -u
load=$1 make=$2
dir=$3/load-slices.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
python3 "$make" "$dir" || exit 1
nd=$dir/nd.safetensors tp=$dir/tp.safetensors index=$dir/tp.safetensors.index.json
fail=0 count=0
bad() { echo "FAIL: $*"; fail=1; }
# ok NAME ARGS...: hipfile-load exits 0, its output in $dir/out.
ok() {
    name=$1; shift
    count=$((count + 1))
    "$load" "$@" > "$dir/out" 2> "$dir/err" || { bad "$name: exit $?"; cat "$dir/err"; return 1; }
}

# expect_slice FILE DIM START STOP: the JSON in $dir/out has the bytes and bytes_read of that
# slice of every tensor of FILE (header parsed here), verify passed, and the slice fields.
expect_slice() {
    python3 - "$dir/out" "$@" <<'PY' || fail=1
import json, struct, sys
doc = json.load(open(sys.argv[1]))
path, dim, start, stop = sys.argv[2], *map(int, sys.argv[3:])
f = open(path, "rb")
header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
size = {"U8": 1, "I16": 2, "BF16": 2, "F32": 4, "F64": 8}
want = read = 0
for name, t in header.items():
    if name == "__metadata__":
        continue
    whole = t["data_offsets"][1] - t["data_offsets"][0]
    shape = t["shape"]
    if dim >= len(shape) or t["dtype"] not in size:
        want, read = want + whole, read + whole
        continue
    a, b = min(start, shape[dim]), min(max(start, stop), shape[dim])
    a, b = min(a, b), b
    inner = size[t["dtype"]]
    for d in shape[dim + 1:]:
        inner *= d
    rows = 1
    for d in shape[:dim]:
        rows *= d
    width, pitch = (b - a) * inner, shape[dim] * inner
    want += rows * width
    read += 0 if width == 0 else (rows - 1) * pitch + width
expect = {"bytes": want, "bytes_read": read, "verify": "passed", "slice": f"{dim}:{start}:{stop}",
          "rank": None, "world_size": None, "layout": None, "allocations": 1, "status": "ok"}
for k, v in expect.items():
    if doc.get(k) != v:
        print(f"FAIL: --slice {dim}:{start}:{stop}: json {k} = {doc.get(k)!r}, want {v!r}")
        sys.exit(1)
PY
}

for spec in 0:1:4 1:2:5 2:1:5 3:3:8 0:2:100 1:6:6 2:9:12 1:0:3; do
    ok "--slice $spec" --slice "$spec" --json --verify "$nd" &&
        expect_slice "$nd" $(echo "$spec" | tr : ' ')
done
ok "--slice --reps --cold --direct" --slice 1:1:3 --reps 2 --pause 0 --cold --direct --parallel 2 --json --verify "$nd" &&
    expect_slice "$nd" 1 1 3
ok "--slice on shards" --slice 1:3:7 --json --verify "$index" && expect_slice "$tp" 1 3 7

ok "--slice text" --slice 1:2:5 --verify --list "$nd" && {
    grep -qx "slices:     slice 1:2:5: 3 tensors sliced, 3 whole; 0.000 GB (588 B) of the checkpoint's 0.000 GB (1.2 KiB) (47.8 %), 0.000 GB (1.1 KiB) read" "$dir/out" ||
        bad "--slice text: slices line: $(grep slices: "$dir/out")"
    grep -qx "verify:     passed (6 tensors compared with pread)" "$dir/out" || bad "--slice text: verify line"
    grep -qx "  cube  I16  \[5, 3, 6\]  GPU 0  180 bytes  slice 1:2:5 of \[5, 7, 6\]" "$dir/out" || bad "--slice text: cube line"
    grep -qx "  four  U8  \[3, 2, 5, 9\]  GPU 0  270 bytes  slice 1:2:4 of \[3, 4, 5, 9\]" "$dir/out" || bad "--slice text: four line"
    grep -qx "  packed  F4  \[6, 4\]  GPU 0  12 bytes" "$dir/out" || bad "--slice text: packed F4 line (read whole)"
    grep -qx "  scalar  F64  \[\]  GPU 0  8 bytes" "$dir/out" || bad "--slice text: scalar line"; }

# Byte 40 of cube[:, 2:5, :] (rows of 3 x 6 I16 = 36 bytes) is byte 4 of its second row: the
# file's row 1 starts 7 x 6 x 2 = 84 bytes after row 0, the slice 2 x 6 x 2 = 24 bytes into it.
cube=$(python3 -c "
import json, struct, sys
f = open(sys.argv[1], 'rb'); n = struct.unpack('<Q', f.read(8))[0]
print(8 + n + json.loads(f.read(n))['cube']['data_offsets'][0])" "$nd")
count=$((count + 1))
HIPFILE_LOAD_CORRUPT=cube:40 "$load" --slice 1:2:5 --verify "$nd" > "$dir/out" 2> "$dir/err"; rc=$?
[ "$rc" -eq 1 ] || bad "corrupted slice: exit $rc, want 1"
grep -q "^hipfile-load: verify: tensor 'cube' differs at byte 40 (file offset $((cube + 84 + 24 + 4)) of $nd): GPU has 0x" "$dir/err" ||
    bad "corrupted slice: $(cat "$dir/err")"

# rank_bytes LAYOUT N FILE: every rank of N loads and verifies; sets sum to their bytes. A
# split of dimension 0 is one contiguous read per tensor (bytes_read = bytes); a split of the
# last dimension (row) reads the rows that hold it, less than the whole checkpoint.
rank_bytes() {
    layout=$1 n=$2 file=$3 sum=0 r=0
    while [ "$r" -lt "$n" ]; do
        ok "--rank $r --world-size $n --layout $layout" --rank "$r" --world-size "$n" --layout "$layout" --json --verify "$file" ||
            return 1
        python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ok = d['verify'] == 'passed' and d['rank'] == int(sys.argv[2]) and d['world_size'] == int(sys.argv[3]) and \
    d['layout'] == sys.argv[4] and d['slice'] is None and d['tensors'] == 6 and \
    (d['bytes'] == d['bytes_read'] if sys.argv[4] != 'row' else d['bytes'] < d['bytes_read'] < d['checkpoint_bytes'])
sys.exit(0 if ok else 1)" "$dir/out" "$r" "$n" "$layout" || bad "--rank $r --world-size $n --layout $layout: $(head -c 600 "$dir/out")"
        sum=$((sum + $(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['bytes'])" "$dir/out")))
        r=$((r + 1))
    done
}
total=$(python3 -c "import os, json, struct, sys
f = open(sys.argv[1], 'rb'); n = struct.unpack('<Q', f.read(8))[0]; print(os.path.getsize(sys.argv[1]) - 8 - n)" "$tp")
[ "$total" -eq 1196 ] || bad "tp.safetensors holds $total bytes of tensors, want 1196"
ones=60  # q.bias (12 BF16), o.bias (2 F32), norm (7 F32): whole on every rank under row
for n in 2 3; do
    for file in "$tp" "$index"; do
        rank_bytes column $n "$file"
        [ "$sum" -eq "$total" ] || bad "column, world size $n, $(basename "$file"): the ranks' bytes add up to $sum, want $total"
    done
    rank_bytes row $n "$tp"
    [ "$sum" -eq "$((total + (n - 1) * ones))" ] || bad "row, world size $n: the ranks' bytes add up to $sum, want $((total + (n - 1) * ones))"
done
rank_bytes vocabulary 2 "$tp"
[ "$sum" -eq "$total" ] || bad "vocabulary, world size 2: the ranks' bytes add up to $sum, want $total"
# Without --layout: column. The rank's text report names it.
ok "--rank default layout" --rank 1 --world-size 2 "$tp" &&
    { grep -q "^slices:     rank 1 of 2, column layout: 6 tensors sliced, 0 whole; " "$dir/out" || bad "--rank text: $(grep slices: "$dir/out")"; }
[ "$fail" -eq 0 ] && echo "ok: $count hipfile-load runs with --slice and --rank"
exit $fail
