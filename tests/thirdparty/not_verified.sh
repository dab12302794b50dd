#!/bin/sh
# tests/thirdparty: dpor exhausts the schedules of an instrumented program on
# a library whose atomics are not instrumented (src/rt/known_libraries.cpp),
# and the verdict must not say "verified": the search saw neither those
# atomics nor what they order.
#   not_verified.sh HEDDLE WORKDIR WHAT PROGRAM
set -u
heddle=$1 workdir=$2 what=$3 program=$4
mkdir -p "$workdir" && cd "$workdir" || exit 1
out=$("$heddle" run --format json --strategy dpor --iterations 1000 --seed 1 --out out -- "$program" 2>"$workdir/not_verified.err")
status=$?
errors=$(cat "$workdir/not_verified.err")
echo "$out"
[ "$status" -eq 0 ] || { echo "not_verified.sh: heddle run exited with $status: $errors" >&2; exit 1; }
echo "$out" | python3 -c "
import json, sys
j = json.loads(sys.stdin.read())
assert j['status'] == 'passed' and j['exhausted'] and not j['verified'], j
" || { echo "not_verified.sh: expected every schedule explored, passed, not verified" >&2; exit 1; }
case "$errors" in
  *"(not verified: $what orders its threads with atomics that are not instrumented, which the search could not see)"*) ;;
  *) echo "not_verified.sh: the verdict does not say why it is not verified: $errors" >&2; exit 1 ;;
esac
