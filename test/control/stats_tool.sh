#!/bin/sh
# hipfile-stats -- PROGRAM: the report shows the helper's exact byte counts and the helper's exit
# status comes back; hipfile-stats FILE prints a report file the helper wrote (mode 0600).
set -u
tool=$1 helper=$2 dir=$3
fail() { echo "FAIL: $*"; exit 1; }
data=$dir/control-stats-helper.dat
report=$dir/control-stats-report.txt
rm -f "$report"
out=$("$tool" -- "$helper" "$data" "$report"); rc=$?
echo "$out"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 3 ] || fail "exit status $rc, expected the helper's 3"
echo "$out" | grep -q "helper done" || fail "the program's own output is missing"
echo "$out" | grep -Eq '^engine +write +1 +1048576 ' || fail "engine write line"
echo "$out" | grep -Eq '^engine +read +1 +1048576 ' || fail "engine read line"
[ "$(stat -c %a "$report")" = 600 ] || fail "report mode $(stat -c %a "$report")"
out=$("$tool" "$report") || fail "hipfile-stats FILE failed"
echo "$out" | grep -Eq '^engine +read +1 +1048576 ' || fail "FILE mode: engine read line"
"$tool" /etc/hostname >/dev/null 2>&1 && fail "a non-report file was accepted"
"$tool" -- /nonexistent/program; [ $? -eq 127 ] || fail "missing program status"
rm -f "$report"
echo PASS
