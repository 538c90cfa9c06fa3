#!/bin/sh
# SPDX-License-Identifier: MIT
# abi_symbols.sh LIBRARY MAP: every name a node of the version script lists is exported at that
# version (a default @@ at the newest node that lists it; the older nodes' copies as @), and
# nothing else is exported: a symbol dropped, moved or leaked fails here (doc/abi.md).
set -u
lib=$1 map=$2
dir=${TMPDIR:-/tmp}/hipfile-abi.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
# NAME@VERSION or NAME@@VERSION of every defined dynamic function.
readelf --dyn-syms -W "$lib" | awk '$7 != "UND" && $4 == "FUNC" {print $8}' | sort > "$dir/exported"
# The expected set from the map: node by node, the newest listing of a name is the default.
awk '
    /^[A-Za-z0-9_.]+ *\{/ { node = $1; next }
    /^}/ { node = ""; next }
    node != "" && !/global:|local:/ {
        gsub(/\/\*.*\*\//, "")
        n = split($0, names, /[ ;]+/)
        for (i = 1; i <= n; i++) if (names[i] ~ /^hipFile/) { last[names[i]] = node; all[names[i], node] = 1 }
    }
    END {
        for (key in all) {
            split(key, part, SUBSEP)
            print part[1] (last[part[1]] == part[2] ? "@@" : "@") part[2]
        }
    }' "$map" | sort > "$dir/expected"
if ! diff "$dir/expected" "$dir/exported" > "$dir/diff"; then
    echo "FAIL: exported symbols differ from $map (< expected, > exported):"
    cat "$dir/diff"
    exit 1
fi
echo "$(wc -l < "$dir/exported") symbols at their versions"
