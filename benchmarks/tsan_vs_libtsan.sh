#!/bin/sh
# tsan_vs_libtsan.sh BUILD_DIR [ROUNDS]: heddle's instrumented-access figures
# (tsan_bench) against gcc's libtsan on the same loop (tsan_bench_libtsan),
# rounds alternated; prints each round's figures and, at the end, the median
# of each figure and of its ratio to libtsan within the round
# (docs/performance.md, "Instrumented accesses").
set -eu
bin=${1:?usage: tsan_vs_libtsan.sh BUILD_DIR [ROUNDS]}/benchmarks
rounds=${2:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  h=$("$bin/tsan_bench")
  t=$("$bin/tsan_bench_libtsan")
  lib=$(printf '%s\n' "$t" | awk '/^  libtsan:/ {print $2}')
  printf '%s\n' "$h" | awk -v lib="$lib" -v round="$i" '
    /outside control:/ {print round, "outside", $3, $3 / lib}
    /control, no checks/ {print round, "dispatch", $5, $5 / lib}
    /race-detector check/ {print round, "none+detector", $4, $4 / lib}
    /shared policy/ {print round, "shared+detector", $5, $5 / lib}
    END {print round, "libtsan", lib, 1}' >> "$out"
  echo "round $i: libtsan $lib ns; heddle: $(printf '%s\n' "$h" | tail -4 | tr -s ' ' | tr '\n' ';')"
done
echo "medians over $rounds rounds (ns per access, ratio to libtsan in the same round):"
for figure in libtsan outside dispatch none+detector shared+detector; do
  awk -v f="$figure" '$2 == f {print $3, $4}' "$out" | sort -n -k1,1 | awk -v f="$figure" '
    {ns[NR] = $1} END {printf "  %-16s %6.1f ns", f, ns[int((NR + 1) / 2)]}'
  awk -v f="$figure" '$2 == f {print $4}' "$out" | sort -n | awk '
    {r[NR] = $1} END {printf "  x%.2f\n", r[int((NR + 1) / 2)]}'
done
