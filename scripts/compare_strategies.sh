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

started=$(date +%s)
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
(and the value of every data choice). An operation is enabled when it is not blocked
and, if it is about to `lock()` a mutex, nobody else holds that mutex (CHESS's rule:
the strategy is never offered an operation that could only block; `try_lock` and
timed locks are offered, since they fail or time out). Pick one by its spec string: in code
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
| `ql` | Q-learning over state fingerprints (Mukherjee et al., OOPSLA 2020): learns across the iterations of its learning window (1,024) to steer toward states it has rarely seen; mix data into the fingerprint with `heddle::state_hash` |
| `surw` | selectively uniform random walk (Zhao et al., ASPLOS 2025): samples the interleavings of shared-memory and lock accesses uniformly, weighting each operation by its remaining accesses learned in a profiling iteration (the first of each learning window of 64) |
| `portfolio` | the default: rotates `pos`, `surw` and `ql` across iterations (iteration i runs member i mod 3, each learning from its own iterations of a window of 192) |
| `fair(S)`, `fair(S,after=N)` | S for the first N steps of every iteration (default `--fair-after`), then `random`, so a loop that never ends is a real liveness bug |
| `replay` | follows a recorded trace (what `heddle replay` uses) |

## The comparison

Every program of the bug suite (`tests/bugs`, one known bug each) under every
strategy, from the program's buggy body with its own options and the default
seed. The randomized strategies keep running after a bug, so the share of buggy
iterations says how often a strategy lands on the bug, and the first buggy
iteration how soon. The exhaustive strategies say how many schedules cover a
program's whole space, when that fits under the cap.

EOF
  echo "Measured $when on $machine, at commit $commit, in about $(($(date +%s) - started)) s."
  echo "Re-run with (BUILD_DIR: a CMake build with tests and benchmarks on, such as build/default):"
  echo
  echo '```sh'
  echo "scripts/compare_strategies.sh BUILD_DIR${flags:+ $flags}"
  echo '```'
  echo
  cat "$figures"
  echo
  cat <<'EOF'
## Learning windows

`pct`, `pctt` and `db` learn the number of steps of an iteration, `surw` its profile,
`ql` its Q-table, and the `portfolio` whatever its members learn. A strategy learns
only within its learning window: a block of consecutive iteration indices of a fixed
size (64 for `pct`, `pctt`, `db` and `surw`; 1,024 for `ql`; 192 for `portfolio`, 64
per member), and starts afresh at the next block. That is what makes a run in worker
processes or in shards find exactly what a run in one process finds
([running.md](running.md#same-seed-same-result)): every iteration learns from the same
earlier iterations wherever it runs, and workers share the work by whole blocks.
Strategies that learn nothing (`random`, `prob`, `pos`) have a window of 1; `dfs` and
`dpor` have one window, the whole run, and run in one process.

Learning over a window rather than over the whole run costs little. On the bug suite
at 10,000 iterations per program (the table above's setting), before (learning over
the whole run, commit a4aa9e2) and after:

| strategy | window | sum of iterations to the first bug | mean buggy iterations | lowest buggy share of a program |
|---|---|---|---|---|
| `pct:3` | 64 | 589 -> 589 | 18.6 % -> 18.6 % | 0.1 % -> 0.2 % |
| `pctt:3` | 64 | 362 -> 362 | 18.5 % -> 18.6 % | 0.1 % -> 0.1 % |
| `db:2` | 64 | 1,628 -> 1,628 | 24.1 % -> 23.9 % | 0.01 % -> 0.1 % |
| `surw` | 64 | 180 -> 180 | 33.5 % -> 34.0 % | 1.7 % -> 1.7 % |
| `ql` | 1,024 | 324 -> 324 | 41.4 % -> 40.7 % | 0.03 % -> 0.1 % |
| `portfolio` | 192 | 77 -> 77 | 32.3 % -> 30.8 % | 2.9 % -> 2.7 % |

Every first bug comes at the same iteration as before (the first window is the start
of the old run). The step count and the profile are learned within an iteration or
two, so their windows change nothing measurable. `ql` keeps converging for longer: with
a window of 64 its mean share fell to 35.2 % (at 2,000 iterations), with 256 to 39.1 %
(`double_checked_locking_plain_flag` 36.9 % -> 17.4 %), and the late read of
`tests/unit/strategy_ql_test.cpp` (a reader that must come after all 24 steps of a
writer), which ql finds after 630, 471, 364 and 452 iterations at seeds default, 1, 2
and 3 when it learns over the whole run, took 4,303, 1,936, 643 and 410 with 256 and
851, 471, 364 and 452 with 512; with 1,024 it is found at the same iterations as over
the whole run. The portfolio's members see 64 of their own iterations per window
(`pos` finds the late read within 98 iterations at those seeds). Longer windows would learn longer but leave
fewer blocks to share between workers: the default 1,000 iterations make 6 blocks
under `portfolio`. Re-measure with `strategy_comparison --iterations=10000
--strategies=pct:3,pctt:3,db:2,ql,surw,portfolio --systematic=` against a build of the
older commit.

## Which strategy when

From the run above (10,000 iterations per cell; 17 programs). Re-read the
table after a re-run: the suite and the strategies change.

- **Keep the default, `portfolio`.** It finds all 17 bugs, with a sum of 53
  iterations to the first bug against 160 for the best single strategy
  (`surw`), 211 for `pos` and 345 for `ql`, and its lowest buggy share on any
  program is 2.9 % (`three_preemptions`): the best worst case of any column
  (`surw` 1.7 %, `pos` 2.0 %, every other strategy 0.1 % or less on some
  program). Its price: its share of buggy iterations is the mean of its three
  members' (32.1 %, against 40.1 % for `ql` and 34.6 % for `surw`), so to
  reproduce a bug you know many times, use the member that finds it most often.
- **Races on plain memory, lock-order deadlocks, livelocks between a few
  threads**: `surw`. It has the highest share on `lost_update_counter`
  (67 %), `atomicity_violation_transfer` (30 %, `random` 12 %),
  `dining_philosophers` (41 %), `polite_livelock` (41 %) and
  `three_preemptions` (5.0 %), and the smallest sum of iterations to the first
  bug of the single strategies. It is weak only where one operation must run
  long without interruption (`pct_long_uninterrupted_run`, 1.7 %).
- **One operation must run long without interruption, or a few preemptions at
  precise places**: a priority or delay scheduler. `random` and `prob:2` never
  found `pct_long_uninterrupted_run` in 10,000 iterations; `db:2` (47 %), `ql`
  (44 %) and `pct:3` (24 %) did. Prefer `pct:3`, whose rates never drop to
  zero; use `pctt:3` when tasks have continuations (the suite has none, so the
  two columns nearly agree).
- **API misuse and data-dependent bugs, programs that loop or retry**: `ql`. It
  has the highest share on `unlock_not_owned` (84 %),
  `binary_semaphore_released_twice` (81 %), `order_violation_use_before_init`
  (89 %) and `double_checked_locking_plain_flag` (33 %, `random` 5 %), because
  it learns across iterations to leave the states it has seen often. Mix the
  data under test into its fingerprint with `heddle::state_hash`. It is nearly
  blind to `three_preemptions` (0.03 %).
- **`db:2`** leads where the bug sits next to round-robin order
  (`bounded_buffer_one_condition` 40 %, `join_deadlock` 94 %,
  `shared_lock_upgrade` 89 %) but almost never finds `polite_livelock`
  (0.01 %, first at iteration 1,047) or `dining_philosophers` (0.2 %): a
  second opinion, not a default.
- **`random` and `prob:2`**: baselines. On this suite every other randomized
  strategy finds what they find, and more.
- **A verdict rather than a search**: `dpor`. It covered the whole space of 16
  of the 17 programs with at most 114 schedules (`dfs:pb=2` needed up to
  20,556 for 16, and plain `dfs` finished 12), so "no bug" after it is a proof
  for that test. When even `dpor` hits the cap (`bounded_buffer_one_condition`
  here), `dfs:pb=2` still gives a bounded verdict (every schedule with at most
  two preemptions) on smaller programs; otherwise spend the time on a
  randomized strategy.
- **Liveness** (livelock, starvation): wrap the strategy, `fair(S)`, so a loop
  that never ends is a real bug, not an artefact of an unfair schedule.
EOF
} >docs/strategies.md
echo "compare_strategies: wrote docs/strategies.md" >&2
