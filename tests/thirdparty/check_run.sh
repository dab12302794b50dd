#!/bin/sh
# tests/thirdparty: runs one third-party program under `heddle run` and checks
# that every iteration passed: no report (exit 0, status "passed") and as many
# iterations as asked for (none cut short by the time budget or a hang).
#   check_run.sh HEDDLE ITERATIONS WORKDIR [heddle run options...] -- PROGRAM ARGS...
# WORKDIR is where the program runs (its input files are made there by the
# caller). The JSON summary is printed so the CTest log has iterations/s.
# With HEDDLE_THIRDPARTY_NO_CUT=1 no iteration may end at --max-steps either
# (a cut iteration passes, but nothing after its cut was checked).
set -u
heddle=$1 iterations=$2 workdir=$3
shift 3
cd "$workdir" || exit 1
# Programs share the work directory and CTest runs them in parallel: a file of its own.
errors=$(mktemp "$workdir/stderr.XXXXXX") || exit 1
trap 'rm -f "$errors"' EXIT
summary=$("$heddle" run --format json --iterations "$iterations" --out "$workdir/heddle-out" "$@" 2>"$errors")
status=$?
echo "$summary"
if [ "$status" -ne 0 ]; then
  echo "check_run: heddle run exited with status $status; its stderr:" >&2
  cat "$errors" >&2
  exit 1
fi
case "$summary" in
  *"\"status\":\"passed\""*"\"iterations\":$iterations,"* | *"\"iterations\":$iterations,"*"\"status\":\"passed\""*) ;;
  *) echo "check_run: expected $iterations iterations that all passed" >&2; cat "$errors" >&2; exit 1 ;;
esac
if [ "${HEDDLE_THIRDPARTY_NO_CUT:-0}" = 1 ]; then
  case "$summary" in
    *"\"max_steps_hits\":0,"*) ;;
    *) echo "check_run: expected no iteration cut at --max-steps" >&2; exit 1 ;;
  esac
fi
