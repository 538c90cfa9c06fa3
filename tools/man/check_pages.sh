#!/bin/sh
# SPDX-License-Identifier: MIT
# check_pages.sh PAGE...: each generated page is man(7) with a .TH naming the tool, a NAME
# section that starts with the tool's name, SYNOPSIS, OPTIONS and EXIT STATUS sections, and no
# line that roff would take as a request by accident; where groff exists it renders the page
# without a warning.
set -u
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for page in "$@"; do
    name=$(basename "$page" .1)
    title=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
    head -n 1 "$page" | grep -q "^\.TH $title 1 " || bad "$page: no .TH $title 1"
    for section in NAME SYNOPSIS OPTIONS "EXIT STATUS"; do
        grep -qx "\.SH $section" "$page" || bad "$page: no $section section"
    done
    esc_name=$(printf '%s' "$name" | sed 's/-/\\\\-/g')
    sed -n '/^\.SH NAME$/{n;p;}' "$page" | grep -q "^$esc_name \\\\- " || bad "$page: NAME does not start with $name"
    if grep -v '^\.\(TH\|SH\|PP\|TP\) \?' "$page" | grep -q '^[.'"'"']'; then bad "$page: a text line starts with . or '"; fi
    if command -v groff >/dev/null 2>&1; then
        warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
        [ -z "$warnings" ] || bad "$page: groff: $warnings"
    fi
done
[ "$fail" -eq 0 ] && echo "$# man pages OK"
exit "$fail"
