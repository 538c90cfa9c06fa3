#!/bin/sh
# SPDX-License-Identifier: MIT
# usage.sh LOAD MAKE_PY WORKDIR: every usage error and every bad checkpoint exits 2 with
# nothing on stdout; usage errors print one line and the "Try 'hipfile-load --help'." hint,
# bad checkpoints (an index naming a missing shard included) one line naming the file and
# the tensor. A missing file exits 1, and so does a FIFO, a device or a directory, at once
# (every run is under timeout(1), so a tool that waits on a FIFO fails here rather than hangs).
# Names from a file reach stderr escaped: no ESC byte. All of these are decided before any GPU
# is touched, so this needs no GPU.
set -u
load=$1 make=$2
dir=$3/load-usage.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
python3 "$make" "$dir" || exit 1
ck=$dir/single.safetensors
fail=0 count=0
esc=$(printf '\033')

# expect RC HINT PATTERN COMMAND...: exit RC, empty stdout, first stderr line matches PATTERN,
# then the --help hint (HINT=1) or nothing more (HINT=0).
expect() {
    want=$1 hint=$2 pattern=$3
    shift 3
    count=$((count + 1))
    timeout 20 "$@" > "$dir/out" 2> "$dir/err" < /dev/null; rc=$?
    what="$(echo "$*" | sed "s|$dir/||g")"
    [ "$rc" -ne 124 ] || { echo "FAIL: $what: still running after 20 s"; fail=1; return; }
    grep -q "$esc" "$dir/err" && { echo "FAIL: $what: an ESC byte reached stderr"; fail=1; }
    [ "$rc" -eq "$want" ] || { echo "FAIL: $what: exit $rc, want $want"; cat "$dir/err"; fail=1; return; }
    [ -s "$dir/out" ] && { echo "FAIL: $what: wrote to stdout:"; cat "$dir/out"; fail=1; }
    head -n 1 "$dir/err" | grep -q -- "^hipfile-load: .*$pattern" ||
        { echo "FAIL: $what: stderr does not match 'hipfile-load: .*$pattern':"; cat "$dir/err"; fail=1; }
    if [ "$hint" -eq 1 ]; then
        [ "$(sed -n 2p "$dir/err")" = "Try 'hipfile-load --help'." ] && [ "$(wc -l < "$dir/err")" -eq 2 ] ||
            { echo "FAIL: $what: stderr is not one message and the hint:"; cat "$dir/err"; fail=1; }
    else
        [ "$(wc -l < "$dir/err")" -eq 1 ] || { echo "FAIL: $what: more than one line on stderr:"; cat "$dir/err"; fail=1; }
    fi
}

expect 2 1 "missing PATH" "$load"
expect 2 1 "missing PATH" "$load" --verify
expect 2 1 "unknown option '--bogus'" "$load" --bogus "$ck"
expect 2 1 "unknown option '-x'" "$load" -qx "$ck"
expect 2 1 "option '--device' needs a value" "$load" "$ck" --device
expect 2 1 "option '-n' needs a value" "$load" "$ck" -n
expect 2 1 "option '--verify' takes no value" "$load" --verify=yes "$ck"
expect 2 1 "--device: 'one' is not a GPU number" "$load" --device one "$ck"
expect 2 1 "--device: '-1' is not a GPU number" "$load" -g -1 "$ck"
expect 2 1 "--devices: '0,,1' is not a list of GPU numbers" "$load" --devices 0,,1 "$ck"
expect 2 1 "--devices: 'x' is not a list of GPU numbers" "$load" --devices x "$ck"
expect 2 1 "--device and --devices exclude each other" "$load" -g 0 --devices 0,1 "$ck"
expect 2 1 "--reps: '0' is not a number >= 1" "$load" --reps 0 "$ck"
expect 2 1 "--reps: '2.5' is not a number >= 1" "$load" -n 2.5 "$ck"
expect 2 1 "--parallel: '0' is not a number from 1 to 64" "$load" --parallel 0 "$ck"
expect 2 1 "--parallel: '65' is not a number from 1 to 64" "$load" --parallel 65 "$ck"
expect 2 1 "--pause: '60001' is not a number from 0 to 60000" "$load" --pause 60001 "$ck"
expect 2 1 "--pause: '-5' is not a number from 0 to 60000" "$load" --pause -5 "$ck"
expect 2 1 "--only: 'a,,b' has an empty name" "$load" --only a,,b "$ck"
expect 2 1 "--write needs a PATH" "$load" --write "" "$ck"
# The copy is renamed over PATH: a FIFO, a socket, a directory or a link there is refused (the
# writer's rule, libhipfile-safetensors' check_destination), not replaced. Device nodes, which
# need root to make: write_nodes.sh.
mkfifo "$dir/out.fifo"
(cd "$dir" && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("out.sock")')  # a short name
ln -s single.safetensors "$dir/out.link"
rule="a checkpoint replaces only a regular file or takes a missing name"
expect 2 1 "--write: '$dir/out.fifo' is a FIFO, not a regular file: $rule" "$load" --write "$dir/out.fifo" "$ck"
expect 2 1 "--write: '$dir/out.sock' is a socket, not a regular file: $rule" "$load" --write "$dir/out.sock" "$ck"
expect 2 1 "--write: '$dir' is a directory, not a regular file" "$load" --write "$dir" "$ck"
expect 2 1 "--write: '$dir/out.link' is a symbolic link: a checkpoint neither replaces a link nor is written through" \
    "$load" --write "$dir/out.link" "$ck"
[ -p "$dir/out.fifo" ] || { echo "FAIL: --write replaced a FIFO"; fail=1; }
[ -S "$dir/out.sock" ] || { echo "FAIL: --write replaced a socket"; fail=1; }
[ -L "$dir/out.link" ] || { echo "FAIL: --write replaced a link"; fail=1; }
# Decided after the headers are read, still before any GPU is touched.
expect 2 1 "--only 'model.layers.2' matches no tensor of the checkpoint" "$load" --only model.layers.2 "$ck"
expect 2 1 "--only 'nothing' matches no tensor" "$load" --only one,nothing "$ck"
expect 2 0 "$dir/bad.safetensors: tensor 'b': data_offsets \[8, 24\] overlap tensor 'a' \[0, 16\]" "$load" "$dir/bad.safetensors"
printf 'short' > "$dir/short.safetensors"
expect 2 0 "short.safetensors: file is 5 bytes, shorter than the 8-byte header length" "$load" "$dir/short.safetensors"
expect 2 0 "single.safetensors: tensor 't.BOOL': is also in .*single.safetensors" "$load" "$ck" "$ck"
printf '{"weight_map":{"x":"gone.safetensors"}}' > "$dir/gone.index.json"
expect 2 0 "gone.index.json: tensor 'x': shard '.*gone.safetensors' cannot be opened: No such file" "$load" "$dir/gone.index.json"
expect 1 0 "none.safetensors: cannot open: No such file or directory" "$load" "$dir/none.safetensors"
# Not regular files: refused before the loader's plain open() could wait on a FIFO.
mkfifo "$dir/fifo.safetensors" "$dir/fifo.index.json"
mkdir "$dir/dir.safetensors"
expect 1 0 "$dir/fifo.safetensors is a FIFO, not a regular file$" "$load" "$dir/fifo.safetensors"
expect 1 0 "$dir/fifo.index.json is a FIFO, not a regular file$" "$load" "$dir/fifo.index.json"
expect 1 0 "$dir/fifo.safetensors is a FIFO, not a regular file$" "$load" "$ck" "$dir/fifo.safetensors"
expect 1 0 "$dir/dir.safetensors is a directory, not a regular file$" "$load" "$dir/dir.safetensors"
expect 1 0 "/dev/zero is a character device, not a regular file$" "$load" /dev/zero
printf '{"weight_map":{"x":"single.safetensors","y":"fifo.safetensors"}}' > "$dir/fifo-shard.index.json"
expect 1 0 "$dir/fifo.safetensors is a FIFO, not a regular file$" "$load" "$dir/fifo-shard.index.json"
# A tensor name with an escape sequence, in the error about it.
expect 2 0 "hostile_bad.safetensors: tensor '\\\\x1b\\[31mred': data_offsets \\[8, 24\\] overlap tensor 'a'" \
    "$load" "$dir/hostile_bad.safetensors"
expect 2 1 "--only 'x\\\\x1b\\[31m' matches no tensor" "$load" --only "x${esc}[31m" "$ck"
[ "$fail" -eq 0 ] && echo "ok: $count usage errors and bad checkpoints"
exit $fail
