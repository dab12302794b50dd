#!/usr/bin/env bash
# Builds and runs benchmarks/strategy_comparison (every bug-suite program under
# every strategy) and writes docs/strategies.md: what each strategy spec means,
# the figures, the machine and date they come from, how to re-run them, and
# which strategy to use when.
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

figures=$(mktemp)
trap 'rm -f "$figures"' EXIT
echo "compare_strategies: running the comparison (progress on stderr)..." >&2
"$build/benchmarks/strategy_comparison" "$@" >"$figures"

machine="$(nproc) CPUs usable, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), $(uname -sr)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
when=$(date -u '+%Y-%m-%d %H:%M UTC')
flags=${*:-}

{
  cat <<'EOF'
# Strategies

A strategy decides, at every scheduling point, which enabled operation runs next
(and the value of every data choice). Pick one by its spec string: in code
(`.strategy = "pct:3"`), with `HEDDLE_STRATEGY`, or with `heddle test --strategy`.
Without one you get `portfolio`. Same seed, same spec: same decisions, on every
machine.

| spec | what it does |
|---|---|
| `random` | at every decision, an enabled operation uniformly at random |
| `prob:N` | keeps the running operation unless N fair coin flips all say switch (probability 2^-N) |
| `pct:D` | PCT (Burckhardt et al., ASPLOS 2010): random priorities per operation, the highest enabled runs; D-1 priority drops at random steps |
| `pctt:D` | PCT^t: PCT with priorities per chain, so an operation's continuations keep its priority; drops demote the whole chain |
| `pos` | partial order sampling (Yuan, Yang, Gu, CAV 2018): random priorities, re-drawn for operations whose pending points race with the step just taken |
| `db:D` | randomized delay bounding (Emmi, Qadeer, Rakamaric, POPL 2011): a deterministic round-robin scheduler, delayed at D random decisions |
| `dfs` | exhaustive depth-first search over schedules and data choices; says when the space is exhausted and how many schedules it took |
| `dfs:pb=K` | `dfs` bounded to K preemptions, deepened from 0 to K (Musuvathi and Qadeer, PLDI 2007) |
| `dpor` | dynamic partial-order reduction with sleep sets (Flanagan and Godefroid, POPL 2005): exhaustive, one schedule per equivalence class |
| `ql` | Q-learning over state fingerprints (Mukherjee et al., OOPSLA 2020): learns across iterations to steer toward states it has rarely seen; mix data into the fingerprint with `heddle::state_hash` |
| `surw` | selectively uniform random walk (Zhao et al., ASPLOS 2025): samples the interleavings of shared-memory and lock accesses uniformly, weighting each operation by its remaining accesses learned in a profiling iteration |
| `portfolio` | the default: rotates a fixed list of strategies across iterations, so iteration i's strategy is known from i alone |
| `fair(S)` | S, then `random` once the unfair step budget (`--fair-after`) is spent, so liveness bugs are real |
| `replay` | follows a recorded trace (what `heddle replay` uses) |

## The comparison

Every program of the bug suite (`tests/bugs`, one known bug each) under every
strategy, from the program's buggy body with its own options and the default
seed. The randomized strategies keep running after a bug, so the share of buggy
iterations says how often a strategy lands on the bug, and the first buggy
iteration how soon. The exhaustive strategies say how many schedules cover a
program's whole space, when that fits under the cap.

EOF
  echo "Measured $when on $machine, at commit $commit. Re-run with:"
  echo
  echo '```sh'
  echo "scripts/compare_strategies.sh $build${flags:+ $flags}"
  echo '```'
  echo
  cat "$figures"
  echo
  cat <<'EOF'
## Which strategy when

Written from the figures above (re-read them after a re-run: the suite grows).

- **Start with the default, `portfolio`.** It finds every bug of the suite, and
  because it changes strategy every iteration it never spends a whole run on a
  strategy that is blind to the bug at hand; see the comparison with the best
  single strategy under the table. Its price is that its buggy share is an
  average of its members', so a bug that only one member finds shows up in a
  fraction of its iterations.
- **Bugs that need one operation to run uninterrupted for long, or a few
  precise preemptions** (`pct_long_uninterrupted_run`, `three_preemptions`,
  ordering bugs in general): a priority scheduler, `pct:3` or `pctt:3` (tasks with
  continuations), or `prob:2`; `random` almost never produces a long run of one
  operation.
- **Races on shared memory and lock-order bugs between a few threads**: `surw`
  and `random` land on them in a large share of iterations; `surw` also reaches
  the schedules where a short operation's access comes after all of a long
  one's, which `random` all but never samples.
- **Programs whose states repeat (loops, retries, spinning) or whose data can be
  hashed**: `ql`, which learns across iterations to leave states it has seen
  often; give it `heddle::state_hash` of the data under test.
- **A verdict rather than a search**: `dpor`, else `dfs` (or `dfs:pb=2` when the
  full space is too big): when they finish, every schedule (up to equivalence,
  for `dpor`) has been tried, so "no bug" is a proof for that test. They finish
  on the small programs of the table; on programs with unbounded retries or many
  operations they hit the cap, and a randomized strategy is the better use of
  the time.
- **Liveness** (livelock, starvation): wrap the strategy in `fair(S)` so that a
  loop which never ends is a real bug, not an artefact of an unfair schedule.
EOF
} >docs/strategies.md
echo "compare_strategies: wrote docs/strategies.md" >&2
