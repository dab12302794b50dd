#!/bin/sh
# tests/thirdparty: a program on a library whose threads heddle cannot see
# whole (src/rt/known_libraries.cpp: libgomp, liburcu), under `heddle run`.
#   known_library.sh HEDDLE ITERATIONS WORKDIR WHAT PLAIN INSTRUMENTED [BUGGY MESSAGE]
# WHAT is the library as heddle names it ("libgomp (OpenMP)"). PLAIN is the
# program built with the plain compiler, INSTRUMENTED the same built with
# heddle's instrumentation; BUGGY (instrumented) has a bug that heddle must
# report with MESSAGE in it, and replay.
set -u
heddle=$1 iterations=$2 workdir=$3 what=$4 plain=$5 instrumented=$6 buggy=${7:-} message=${8:-}
mkdir -p "$workdir" && cd "$workdir" && rm -rf out || exit 1
failed=0
fail() { echo "known_library.sh: $*" >&2; failed=1; }
# The plain program passes under each strategy, no iteration cut at --max-steps.
for strategy in random pct:3 dfs dpor; do
  out=$("$heddle" run --format json --iterations "$iterations" --seed 1 --strategy $strategy --out out -- "$plain" 2>&1)
  status=$?
  echo "$out" | tail -1
  [ "$status" -eq 0 ] || fail "$plain under $strategy: heddle run exited with $status: $out"
  # Every iteration asked for, or fewer when dfs or dpor exhausted the schedules.
  echo "$out" | tail -1 | python3 -c "
import json, sys
j = json.loads(sys.stdin.read())
assert j['status'] == 'passed' and j['max_steps_hits'] == 0, j
assert j['iterations'] == $iterations or j['exhausted'], j
assert not j['verified'], j  # a plain program is scheduled at its synchronization calls only
" || fail "$plain under $strategy: expected $iterations iterations (or all schedules) passed, none cut, not verified: $out"
done
# Instrumented, it passes too, with the race detector off and one line that
# says why (it would report what the library's invisible atomics order).
out=$("$heddle" run --iterations "$iterations" --seed 1 --out out -- "$instrumented" 2>&1)
status=$?
[ "$status" -eq 0 ] || fail "$instrumented: heddle run exited with $status, not 0: $out"
case "$out" in
  *"heddle: warning: the race detector is off: $what, "*", orders its threads with atomics that are not instrumented, so it would report the accesses "*" order as races (--detect-races true turns it on)"*) ;;
  *) fail "$instrumented: the run did not say the race detector is off: $out" ;;
esac
# ... and its verdict says what it did not check, not a plain "no bug found".
case "$out" in
  *"heddle: not checked: data races: the race detector was off, since $what orders its threads with atomics that are not instrumented"*) ;;
  *) fail "$instrumented: the verdict does not say data races were not checked: $out" ;;
esac
# Asked for through HEDDLE_OPTIONS (as through --detect-races), it stays on.
out=$(HEDDLE_OPTIONS=detect_races=true "$heddle" run --iterations 3 --seed 1 --out out -- "$instrumented" 2>&1)
case "$out" in
  *"the race detector is off"*|*"the race detector was off"*) fail "HEDDLE_OPTIONS=detect_races=true: the race detector was turned off: $out" ;;
esac
# On fibers every thread's thread_local lies at one address, and the library
# hands a thread's to the others by pointer: one line and exit status 2, not
# a deadlock or a crash reported as the program's bug.
out=$("$heddle" run --iterations 5 --backend fibers --out out -- "$plain" 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "on fibers: heddle run exited with $status, not 2: $out"
case "$out" in
  *"heddle: $what, "*", hands each thread's thread_local state to its other threads by pointer, which --backend fibers cannot give (every fiber's copy lies at one address): run it on --backend threads"*) ;;
  *) fail "on fibers: not the one line that says why: $out" ;;
esac
if [ -n "$buggy" ]; then
  out=$("$heddle" run --iterations "$iterations" --seed 1 --out out -- "$buggy" 2>&1)
  status=$?
  [ "$status" -eq 1 ] || fail "$buggy: heddle run exited with $status, not 1: $out"
  case "$out" in
    *"$message"*) ;;
    *) fail "$buggy: the bug was not reported as '$message': $out" ;;
  esac
  replay=$("$heddle" replay "out/run_$(basename "$buggy")/bug-1.json" 2>&1)
  case "$replay" in
    *"bug reproduced"*) ;;
    *) fail "$buggy: its trace did not replay: $replay" ;;
  esac
fi
exit $failed
