#!/bin/sh
# tests/pushbutton: the same seed and options give the same schedules on both
# backends (docs/running.md, "Same seed, same result"). Runs the fixed program
# ITERATIONS times and the buggy one until its first bug, each with
# `--backend threads` and `--backend fibers`, and compares the status and every
# iteration's index, schedule hash and step count (--record-iterations); then
# the same for each further program (the fixed one built without heddle-cc).
#   backends_agree.sh HEDDLE STRATEGY ITERATIONS BUGGY FIXED [PROGRAM...]
set -u
heddle=$1 strategy=$2 iterations=$3
shift 3
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
failed=0
for program in "$@"; do
  for backend in threads fibers; do
    "$heddle" run --format json --record-iterations --seed 7 --strategy "$strategy" --iterations "$iterations" \
      --backend "$backend" --out "$out/heddle-out" -- "$program" 2>"$out/stderr" |
      sed -n 's/.*\("schedules":\[[^]]*\(\][^]]*\)*\]\]\).*\("status":"[a-z]*"\).*/\3 \1/p' >"$out/$backend"
    if [ ! -s "$out/$backend" ]; then
      echo "backends_agree: no summary from $program on $backend; its stderr:" >&2
      cat "$out/stderr" >&2
      exit 1
    fi
  done
  if ! cmp -s "$out/threads" "$out/fibers"; then
    echo "backends_agree: $strategy gives $program different schedules on threads and fibers (seed 7):" >&2
    echo "threads: $(cut -c1-600 "$out/threads")" >&2
    echo "fibers:  $(cut -c1-600 "$out/fibers")" >&2
    failed=1
  else
    echo "$strategy, $(basename "$program"): $(cut -d' ' -f1 "$out/threads"), same schedules on both backends"
  fi
done
exit $failed
