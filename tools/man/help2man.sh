#!/bin/sh
# SPDX-License-Identifier: MIT
# help2man.sh TOOL NAME VERSION OUTPUT: writes the man(7) page of TOOL from its --help, which is
# already laid out as a manual (NAME, SYNOPSIS, ... at column 0, text indented by 4, an option's
# or a value's description by 8). Runs at build time; needs no GPU.
set -eu
tool=$1 name=$2 version=$3 out=$4
help=$("$tool" --help) || { echo "help2man.sh: $tool --help failed" >&2; exit 1; }
title=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
{
    printf '.TH %s 1 "" "hipfile %s" "User Commands"\n' "$title" "$version"
    printf '%s\n' "$help" | awk '
        function esc(s) {
            gsub(/\\/, "\\e", s)
            gsub(/-/, "\\-", s)
            if (s ~ /^[.\047]/) s = "\\&" s
            return s
        }
        function heading(s) { return s ~ /^[A-Z][A-Z ]*$/ }
        { line[NR] = $0 }
        END {
            for (i = 1; i <= NR; i++) {
                s = line[i]
                if (heading(s)) { print ".SH " s; continue }
                if (s == "") { if (i < NR && !heading(line[i + 1])) print ".PP"; continue }
                if (s ~ /^        /) { sub(/^        /, "", s); print esc(s); continue }
                sub(/^    /, "", s)
                # An indent-4 line followed by indent-8 lines is a term: an option, a status, an example.
                if (i < NR && line[i + 1] ~ /^        /) print ".TP"
                print esc(s)
            }
        }
    '
} > "$out"
