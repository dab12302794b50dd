#!/bin/sh
# vs_relacy.sh BUILD_DIR [ROUNDS]: heddle's decision path against Relacy's,
# side by side in one sitting (docs/performance.md, "Against Relacy").
#
# RELACY_DIR must name a checkout of github.com/dvyukov/relacy (the directory
# holding relacy/relacy.hpp); heddle does not ship it. Without it the script
# runs heddle's side alone and says so. With it, it compiles Relacy's side
# (vs_relacy_relacy.cpp, g++ -O2 as heddle's RelWithDebInfo build) into
# BUILD_DIR/benchmarks, then runs ROUNDS rounds (default 5), the two sides
# alternated and the order flipped every round, and prints each round's
# figures and the medians over rounds of each figure and of the per-round
# ratio heddle / Relacy:
#
#   decisions/random   2 x 10,000 yields; Relacy: random_scheduler
#   decisions/pct3     heddle pct:3; Relacy: context_bound_scheduler, bound 3
#   iterations/mutex   2 threads x 10 increments under a mutex, random
#   first_bug/mp       message passing with a relaxed flag: time to the first
#                      bug (heddle --memory-model rc11, Relacy's relaxed model);
#                      here the ratio is of times (below 1: heddle is faster)
#
# Environment: REPS (repetitions per figure within a run, default 5),
# BUG_RUNS (explore()/simulate calls for first_bug, default 201), CXX.
set -eu
build=${1:?usage: vs_relacy.sh BUILD_DIR [ROUNDS]}
rounds=${2:-5}
reps=${REPS:-5}
bug_runs=${BUG_RUNS:-201}
here=$(cd "$(dirname "$0")" && pwd)
heddle_side=$build/benchmarks/vs_relacy_heddle
[ -x "$heddle_side" ] || { echo "vs_relacy.sh: $heddle_side not built (cmake --build $build --target vs_relacy_heddle)" >&2; exit 2; }

echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "heddle: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"

if [ -z "${RELACY_DIR:-}" ] || [ ! -f "${RELACY_DIR}/relacy/relacy.hpp" ]; then
  echo "vs_relacy.sh: RELACY_DIR does not name a Relacy checkout (relacy/relacy.hpp); skipping Relacy, heddle's side alone:"
  "$heddle_side" "$reps" "$bug_runs"
  exit 0
fi
relacy_side=$build/benchmarks/vs_relacy_relacy
${CXX:-g++} -std=c++20 -O2 -DNDEBUG -I"$RELACY_DIR" "$here/vs_relacy_relacy.cpp" -o "$relacy_side"
echo "relacy: $(git -C "$RELACY_DIR" rev-parse --short HEAD 2>/dev/null || echo "$RELACY_DIR")"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  if [ $((i % 2)) -eq 1 ]; then
    h=$("$heddle_side" "$reps" "$bug_runs")
    r=$("$relacy_side" "$reps" "$bug_runs")
  else
    r=$("$relacy_side" "$reps" "$bug_runs")
    h=$("$heddle_side" "$reps" "$bug_runs")
  fi
  # Relacy's context-bound scheduler stands where heddle's pct:3 does.
  r=$(printf '%s\n' "$r" | sed 's|^decisions/bound3 |decisions/pct3 |')
  printf '%s\n' "$h" | awk -v round="$i" '{print round, "heddle", $1, $2, $4}' >> "$out"
  printf '%s\n' "$r" | awk -v round="$i" '{print round, "relacy", $1, $2, $4}' >> "$out"
  echo "round $i:"
  printf '%s\n' "$h" | sed 's/^/  heddle /'
  printf '%s\n' "$r" | sed 's/^/  relacy /'
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "medians over $rounds rounds (ratio: heddle / Relacy within each round):"
for figure in decisions/random decisions/pct3 iterations/mutex first_bug/mp; do
  hm=$(awk -v f="$figure" '$2 == "heddle" && $3 == f {print $4}' "$out" | median)
  rm_=$(awk -v f="$figure" '$2 == "relacy" && $3 == f {print $4}' "$out" | median)
  ratio=$(awk -v f="$figure" '$3 == f {v[$1, $2] = $4; n[$1] = 1}
    END {for (k in n) if (v[k, "relacy"] > 0) print v[k, "heddle"] / v[k, "relacy"]}' "$out" | median)
  if [ "$figure" = first_bug/mp ]; then
    hi=$(awk '$2 == "heddle" && $3 == "first_bug/mp" {print $5}' "$out" | median)
    ri=$(awk '$2 == "relacy" && $3 == "first_bug/mp" {print $5}' "$out" | median)
    printf '  %-17s heddle %8.1f us (%s iterations)  relacy %8.1f us (%s iterations)  time ratio x%.2f\n' \
      "$figure" "$(awk -v s="$hm" 'BEGIN {print s * 1e6}')" "$hi" "$(awk -v s="$rm_" 'BEGIN {print s * 1e6}')" "$ri" "$ratio"
  else
    printf '  %-17s heddle %12.0f  relacy %12.0f  x%.2f\n' "$figure" "$hm" "$rm_" "$ratio"
  fi
done
