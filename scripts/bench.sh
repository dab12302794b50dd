#!/usr/bin/env bash
# Runs every figure of docs/performance.md: the engine's decisions/s and
# iterations/s (random and pct:3), the reference switches and hand-offs measured
# in the same run, and the RSS harness. Prints the machine and the date first, so
# a pasted output is a complete record.
#
#   scripts/bench.sh [BUILD_DIR] [extra Google Benchmark flags...]
#   make bench                       (BUILD_DIR = build/default)
#
# Environment: HEDDLE_BENCH_REPETITIONS (default 5): repetitions per benchmark;
# the summary quotes their medians. HEDDLE_RSS_ITERATIONS (default 1000000).
# Results also go to BUILD_DIR/bench/: results.json (Google Benchmark's JSON) and
# report.txt (this output).
set -euo pipefail

build=${1:-build/default}
shift || true
repetitions=${HEDDLE_BENCH_REPETITIONS:-5}
rss_iterations=${HEDDLE_RSS_ITERATIONS:-1000000}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "heddle bench: no CMake build in '$build'; configure one first (make build, or cmake --preset default)" >&2
  exit 2
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
if grep -q '^HEDDLE_BUILD_BENCHMARKS:BOOL=OFF' "$build/CMakeCache.txt"; then
  echo "heddle bench: '$build' was configured with HEDDLE_BUILD_BENCHMARKS=OFF" >&2
  exit 2
fi
cmake --build "$build" --target heddle_benchmarks heddle_rss >/dev/null

out="$build/bench"
mkdir -p "$out"
{
  echo "heddle benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "  machine: $(nproc) CPUs usable, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)," \
       "$(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "  build: $build ($build_type), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  case "$build_type" in
    Release|RelWithDebInfo) ;;
    *) echo "  WARNING: a $build_type build; figures of an unoptimized build mean little" ;;
  esac
  echo "  command: scripts/bench.sh $build $* (HEDDLE_BENCH_REPETITIONS=$repetitions)"
  echo
  "$build/benchmarks/heddle_benchmarks" \
    --benchmark_repetitions="$repetitions" \
    --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/results.json" --benchmark_out_format=json \
    --benchmark_color=false "$@"
  echo
  "$build/benchmarks/heddle_rss" "$rss_iterations"
} 2>&1 | tee "$out/report.txt"
