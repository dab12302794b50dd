#!/usr/bin/env bash
# Builds and runs benchmarks/strategy_comparison (every bug-suite program under
# every strategy) and writes its figures into docs/strategies.md: the two tables,
# the machine and date they come from and how to re-run them. The rest of the
# page (what each spec means, the other sections, which strategy to use when)
# is written by hand; re-read it against the new figures.
#
#   scripts/compare_strategies.sh [BUILD_DIR] [strategy_comparison flags...]
#
# BUILD_DIR (default build/default) must be a configured CMake build with tests
# and benchmarks on (the comparison links the bug-suite library, which is built
# with the tests). Flags go to the program, e.g. --iterations=2000 for a quick
# look; the published page uses the defaults (10,000 iterations per cell, a cap
# of 100,000 schedules for the exhaustive searches). The figures do not depend on
# the machine (fixed seed, deterministic strategies); only the times do.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/default}
shift || true
cd "$root"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "compare_strategies: no CMake build in '$build'; configure one first (cmake --preset default)" >&2
  exit 2
fi
for option in HEDDLE_BUILD_TESTS HEDDLE_BUILD_BENCHMARKS; do
  if grep -q "^$option:BOOL=OFF" "$build/CMakeCache.txt"; then
    echo "compare_strategies: '$build' was configured with $option=OFF; the comparison needs both tests and benchmarks" >&2
    exit 2
  fi
done
cmake --build "$build" --target strategy_comparison >/dev/null

started=$(date +%s)
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
echo "compare_strategies: running the comparison (progress on stderr)..." >&2
"$build/benchmarks/strategy_comparison" "$@" >"$figures"

machine="$(nproc) CPUs usable, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(uname -sr)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
when=$(date -u '+%Y-%m-%d %H:%M UTC')
flags=${*:-}

# The page's prose, the other sections and "Which strategy when" are written by
# hand; the script replaces only the generated region: from the "Measured" line
# through the two tables, up to the next "### dpor under" or "## " heading.
page=docs/strategies.md
if ! grep -q '^Measured ' "$page" || ! grep -q '^### Randomized strategies' "$page"; then
  echo "compare_strategies: $page has no \"Measured\" line or no \"### Randomized strategies\" table to replace" >&2
  exit 2
fi
header=$(mktemp)
trap 'rm -f "$figures" "$header"' EXIT
{
  echo "Measured $when on $machine, at commit $commit, in about $(($(date +%s) - started)) s."
  echo "Re-run with (BUILD_DIR: a CMake build with tests and benchmarks on, such as build/default):"
  echo
  echo '```sh'
  echo "scripts/compare_strategies.sh BUILD_DIR${flags:+ $flags}"
  echo '```'
  echo
  cat "$figures"
  echo
} >"$header"
awk -v generated="$header" '
  /^Measured / && !done { while ((getline line < generated) > 0) print line; skipping = 1; done = 1; next }
  skipping && (/^### dpor under/ || /^## /) { skipping = 0 }
  !skipping { print }
' "$page" >"$page.new"
mv "$page.new" "$page"
echo "compare_strategies: wrote docs/strategies.md" >&2
