#!/usr/bin/env bash
# Regenerates src/rt/hot_sections.txt: the functions of libheddle-rt that a
# fork server's child runs in a short iteration, as the input sections
# (-ffunction-sections) that gold lays out first in libheddle-rt's text (see
# src/rt/CMakeLists.txt). A fork copies no page-table entry of a file mapping,
# so each child faults in every 64 KiB window of code it runs: packed
# together, that code takes 2 windows instead of 10 (docs/performance.md,
# "Push-button"). A stale list costs only those faults, never correctness.
#
#   scripts/hot_sections.sh [build-dir]     (needs valgrind; default build/default)
set -euo pipefail
build=${1:-build/default}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The program twice: plain (synchronization only) and instrumented as
# heddle-cc builds it, whose every plain access runs the access hooks, the
# memory policy and the race detector in the child.
for program in pushbutton_two_threads pushbutton_two_threads_instrumented; do
  for backend in fibers threads; do
    (cd "$work" && env LD_BIND_NOW=1 HEDDLE_RUN=1 HEDDLE_BACKEND=$backend HEDDLE_ITERATIONS=3 HEDDLE_STRATEGY=random \
       HEDDLE_OUT= valgrind --tool=callgrind --compress-strings=no --compress-pos=no --demangle=no \
       --collect-atstart=no '--toggle-collect=_ZN6heddle2rt*iteration_server3run*' \
       --callgrind-out-file="$work/cg.$program.$backend.%p" \
       "$source_dir/$build/benchmarks/$program" >/dev/null 2>&1)
  done
done
# Every function of libheddle-rt with a cost while an iteration is served
# (the fork server's side of it, and all of the child, which forks inside
# iteration_server::run), without callgrind's recursion marks ('2); a complete
# constructor or destructor (C1, D1) lives in the section of its base one (C2, D2).
awk '
  /^ob=/ { ob = substr($0, 4); next }
  /^fn=/ { fn = substr($0, 4); next }
  /^calls=/ { skip = 1; next }
  /^[0-9+-]/ { if (skip) { skip = 0; next } if (ob ~ /libheddle-rt\.so$/ && $2 > 0) hot[fn] = 1; next }
  END { for (f in hot) if (f !~ /^(0x|\()/) print f }
' "$work"/cg.* | sed "s/'[0-9]*\$//" | sort -u |
  awk '{ print ".text." $0; n = $0; if (sub(/C1E/, "C2E", n)) print ".text." n; n = $0; if (sub(/D1E/, "D2E", n)) print ".text." n }' |
  sort -u > "$source_dir/src/rt/hot_sections.txt"
echo "$(wc -l < "$source_dir/src/rt/hot_sections.txt") sections in src/rt/hot_sections.txt"
