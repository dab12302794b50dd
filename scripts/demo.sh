#!/usr/bin/env bash
# scripts/demo.sh BUILD_DIR: what `make demo` shows.
#
#   1. `heddle test` finds the interleaving bug in examples/bank_account and
#      prints the report (who did what, in which order) and the trace file;
#   2. `heddle replay` runs that exact interleaving again: same bug;
#   3. `heddle test` explores the fixed twin and finds nothing.
#
# Exits 0 when all three went as expected, 1 otherwise, saying which step failed.
set -u

build=${1:?usage: scripts/demo.sh BUILD_DIR}
heddle=$build/bin/heddle
buggy=$build/examples/bank_account
fixed=$build/examples/bank_account_fixed
out=$build/demo-out

for f in "$heddle" "$buggy" "$fixed"; do
  [[ -x $f ]] || { echo "demo: $f is missing; build first (make build)" >&2; exit 1; }
done

if [[ -t 1 ]]; then bold=$'\e[1m' green=$'\e[32m' red=$'\e[31m' plain=$'\e[0m'; else bold="" green="" red="" plain=""; fi
header() { printf '\n%s==== %s ====%s\n%s$ %s%s\n\n' "$bold" "$1" "$plain" "$bold" "$2" "$plain"; }
failed() { printf '\n%sdemo: %s%s\n' "$red" "$1" "$plain" >&2; exit 1; }

rm -rf "$out"

header "1. Find the bug: two withdrawals race on one account" \
       "heddle test $buggy --iterations 10000 --strategy pct:3 --out $out"
"$heddle" test "$buggy" --iterations 10000 --strategy pct:3 --out "$out" 2>&1
status=$?
[[ $status == 1 ]] || failed "expected heddle test to find the bug (exit 1), got exit $status"
trace=$(ls "$out"/account.concurrent_withdrawals/bug-*.json 2>/dev/null | head -n 1)
[[ -n $trace ]] || failed "heddle test found the bug but wrote no trace under $out"

header "2. Replay it: the same interleaving, the same bug, every time" "heddle replay $trace"
"$heddle" replay "$trace" 2>&1
status=$?
[[ $status == 1 ]] || failed "expected heddle replay to reproduce the bug (exit 1), got exit $status"

header "3. The fixed twin: check and update in one critical section" \
       "heddle test $fixed --iterations 10000 --strategy pct:3 --out $out"
"$heddle" test "$fixed" --iterations 10000 --strategy pct:3 --out "$out" 2>&1
status=$?
[[ $status == 0 ]] || failed "expected the fixed twin to pass (exit 0), got exit $status"

printf '\n%sdemo: bug found, replayed, and the fix passes.%s\n' "$green" "$plain"
