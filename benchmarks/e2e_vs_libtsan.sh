#!/bin/sh
# e2e_vs_libtsan.sh BUILD_DIR [ROUNDS]: whole programs under `heddle run
# --iterations 200` against the same source built with gcc's
# -fsanitize=thread (libtsan) and run 200 times (docs/performance.md,
# "End to end against libtsan"). Rounds alternated (default 3), the order
# flipped every round; prints each round's wall and CPU (user + system,
# children included) seconds and the medians of the per-round ratios
# heddle / libtsan (below 1: heddle takes less).
#
#   chase_lev      tests/pushbutton's largest program, chase_lev_fixed.cpp
#                  (-g -O1 as tests/pushbutton builds it)
#   concurrentqueue tests/thirdparty/concurrentqueue_producers.cpp
#                  (moodycamel::ConcurrentQueue, libconcurrentqueue-dev; -g -O1)
#   pigz           pigz -p 4 -b 32 -c on 240 KB of text, as tests/thirdparty
#                  runs Debian's pigz, built from source twice (heddle-cc and
#                  gcc -fsanitize=thread, -O2 -g) when PIGZ_DIR names a
#                  checkout of github.com/madler/pigz (skipped otherwise);
#   pigz-debian    Debian's own /usr/bin/pigz, uninstrumented, under heddle
#                  run (synchronization-level control, as tests/thirdparty
#                  runs it) against the same binary with libtsan preloaded
#                  (LD_PRELOAD: libtsan's pthread and malloc interceptors,
#                  with no instrumented access).
# Every heddle run must pass all 200 iterations, every libtsan run exit 0 and
# report nothing; otherwise the script stops.
set -eu
build=$(cd "${1:?usage: e2e_vs_libtsan.sh BUILD_DIR [ROUNDS]}" && pwd)
rounds=${2:-3}
iterations=200
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
heddle=$build/bin/heddle
[ -x "$heddle" ] || { echo "e2e_vs_libtsan.sh: $heddle not built (cmake --build $build --target heddle_cli)" >&2; exit 2; }
work=$build/bench-e2e
mkdir -p "$work"
cd "$work"
libtsan=$(gcc -print-file-name=libtsan.so)

echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "heddle: $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"

# --- the programs: "name|heddle command|libtsan command" --------------------
programs=$work/programs
: > "$programs"
need() { [ -x "$1" ] || { echo "e2e_vs_libtsan.sh: $1 not built (cmake --build $build --target $2)" >&2; exit 2; }; }

chase=$build/tests/pushbutton/pushbutton_chase_lev_fixed
need "$chase" pushbutton_chase_lev_fixed
g++ -std=c++20 -g -O1 -UNDEBUG -Wno-tsan -fsanitize=thread "$src/tests/pushbutton/chase_lev_fixed.cpp" -o chase_lev_fixed.tsan -pthread
echo "chase_lev|$chase|$work/chase_lev_fixed.tsan" >> "$programs"

queue=$build/tests/thirdparty/thirdparty_concurrentqueue_producers
if [ -x "$queue" ]; then
  g++ -std=c++20 -g -O1 -UNDEBUG -Wno-tsan -fsanitize=thread "$src/tests/thirdparty/concurrentqueue_producers.cpp" \
    -o concurrentqueue.tsan -pthread
  echo "concurrentqueue|$queue|$work/concurrentqueue.tsan" >> "$programs"
else
  echo "e2e_vs_libtsan.sh: $queue not built (libconcurrentqueue-dev missing?); concurrentqueue skipped"
fi

seq 1 40000 > input
if [ -n "${PIGZ_DIR:-}" ] && [ -f "$PIGZ_DIR/pigz.c" ]; then
  zop=$(for f in deflate blocksplitter tree lz77 cache hash util squeeze katajainen symbols; do
          printf '%s ' "$PIGZ_DIR/zopfli/src/zopfli/$f.c"; done)
  # shellcheck disable=SC2086
  "$build/bin/heddle-cc" -O2 -g -w "$PIGZ_DIR/pigz.c" "$PIGZ_DIR/yarn.c" "$PIGZ_DIR/try.c" $zop -o pigz.heddle -lz -lm -lpthread
  # shellcheck disable=SC2086
  gcc -O2 -g -w -fsanitize=thread "$PIGZ_DIR/pigz.c" "$PIGZ_DIR/yarn.c" "$PIGZ_DIR/try.c" $zop -o pigz.tsan -lz -lm -lpthread
  echo "pigz|$work/pigz.heddle -p 4 -b 32 -c input|$work/pigz.tsan -p 4 -b 32 -c input" >> "$programs"
else
  echo "e2e_vs_libtsan.sh: PIGZ_DIR does not name a pigz checkout (pigz.c); pigz from source skipped"
fi
if command -v pigz > /dev/null; then
  echo "pigz-debian|$(command -v pigz) -p 4 -b 32 -c input|env LD_PRELOAD=$libtsan $(command -v pigz) -p 4 -b 32 -c input" >> "$programs"
fi

# --- the rounds ---------------------------------------------------------------
# Seconds of wall and CPU (user + system of the command and its children).
timed() { /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > "$work/stdout" 2> "$work/stderr" || {
  echo "e2e_vs_libtsan.sh: '$*' failed:" >&2; tail -5 "$work/stderr" >&2; exit 1; }
  awk '{printf "%.3f %.3f", $1, $2 + $3}' "$work/time"; }
run_heddle() {
  # shellcheck disable=SC2086
  timed "$heddle" run --iterations "$iterations" --format json --out "" -- $1
  grep -q "\"iterations\":$iterations," "$work/stdout" && grep -q '"status":"passed"' "$work/stdout" || {
    echo "e2e_vs_libtsan.sh: heddle run did not pass $iterations iterations of '$1':" >&2
    cat "$work/stdout" "$work/stderr" >&2; exit 1; }
}
run_libtsan() {
  # shellcheck disable=SC2016,SC2086
  timed sh -c 'n=$1; shift; i=0; while [ "$i" -lt "$n" ]; do i=$((i + 1)); "$@" > /dev/null || exit 1; done' \
    sh "$iterations" $1
  if grep -q "WARNING: ThreadSanitizer" "$work/stderr"; then
    echo "e2e_vs_libtsan.sh: libtsan reported on '$1':" >&2; head -20 "$work/stderr" >&2; exit 1
  fi
}

results=$work/results
: > "$results"
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  while IFS='|' read -r name hcmd tcmd; do
    if [ $((i % 2)) -eq 1 ]; then
      h=$(run_heddle "$hcmd"); t=$(run_libtsan "$tcmd")
    else
      t=$(run_libtsan "$tcmd"); h=$(run_heddle "$hcmd")
    fi
    echo "$i $name $h $t" >> "$results"
    echo "round $i $name: heddle wall ${h% *} s cpu ${h#* } s; libtsan wall ${t% *} s cpu ${t#* } s"
  done < "$programs"
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "medians over $rounds rounds of $iterations iterations (ratio heddle / libtsan within each round):"
while IFS='|' read -r name hcmd tcmd; do
  hw=$(awk -v n="$name" '$2 == n {print $3}' "$results" | median)
  tw=$(awk -v n="$name" '$2 == n {print $5}' "$results" | median)
  rw=$(awk -v n="$name" '$2 == n {print $3 / $5}' "$results" | median)
  rc=$(awk -v n="$name" '$2 == n {print $4 / $6}' "$results" | median)
  printf '  %-16s heddle %7.2f s  libtsan %7.2f s  wall x%.3f  cpu x%.3f\n' "$name" "$hw" "$tw" "$rw" "$rc"
done < "$programs"
