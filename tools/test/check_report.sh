#!/bin/sh
# SPDX-License-Identifier: MIT
# check_report.sh HIPFILE_CHECK FAKE_CUFILE DIR (platform=cpu): hipfile-check prints the
# library's own fastpath decision. With the fake libcufile reporting GDS it names cufile; with
# the fake reporting none it says why (nvfs version 0.0); without HIPFILE_CUFILE_LIBRARY it says
# no fastpath exists on platform cpu.
set -u
check=$1
fake=$2
dir=$3
fail=0

expect() {  # expect LABEL PATTERN OUTPUT
    if printf '%s\n' "$3" | grep -q -- "$2"; then
        echo "ok: $1"
    else
        echo "FAIL: $1: no line matches '$2' in:"
        printf '%s\n' "$3"
        fail=1
    fi
}

out=$(HIPFILE_CUFILE_LIBRARY=$fake "$check" "$dir") || { echo "FAIL: hipfile-check failed"; printf '%s\n' "$out"; exit 1; }
expect "fake reporting GDS" "hipfile uses: cufile *yes *library $fake, GDS yes: GPU-direct storage reported" "$out"
expect "the verdict follows the library" "^verdict: OK: .*GPU-direct fastpath available" "$out"

if [ ! -e /proc/driver/nvidia-fs ]; then
    out=$(HIPFILE_CUFILE_LIBRARY=$fake FAKE_CUFILE_GDS=0 "$check" "$dir") || { echo "FAIL: hipfile-check failed"; exit 1; }
    expect "fake reporting no GDS" "hipfile uses: none *no *library $fake, GDS no: libcufile loaded but reports no GPU-direct storage (nvfs version 0.0" "$out"
    expect "verdict without a fastpath" "^verdict: OK: .*no fastpath" "$out"
fi

out=$(env -u HIPFILE_CUFILE_LIBRARY "$check" "$dir") || { echo "FAIL: hipfile-check failed"; exit 1; }
expect "no cuFile on cpu" "hipfile uses: none *no *library none, GDS no: no fastpath exists on platform cpu" "$out"
exit $fail
