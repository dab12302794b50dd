#!/usr/bin/env bash
# End-to-end tests of the `heddle` CLI, one behaviour per invocation:
#
#   cli_test.sh CASE HEDDLE BANK_ACCOUNT BANK_ACCOUNT_FIXED CRASH_EXAMPLE WORK_DIR PLAIN_DIR HANG_EXAMPLE
#               VERDICT_EXAMPLE PLAIN_GTEST INSTRUMENTED_PROGRAM BENIGN_RACE BENIGN_RACE_SUPPRESSIONS
#               TASK_ACCOUNT TASK_ACCOUNT_FIXED
#
# PLAIN_DIR holds plain_abba_deadlock, plain_hang_in_read and their _fixed
# twins, plain_many_steps, plain_spurious_wakeup_in_if and
# plain_usual_exit_status_fixed: tests/pushbutton programs built without
# heddle's wrappers; and plain_own_malloc and plain_own_futex (tests/cli). BENIGN_RACE is tests/pushbutton's suppressed_benign_race_fixed
# (instrumented), with its suppressions file.
#
# Each case runs the built tool in a fresh WORK_DIR and checks exit codes and
# output text (bug kind, message, replay command, one-line errors) with the
# helpers of tests/lib/check.sh.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case_name=$1 heddle=$2 buggy=$3 fixed=$4 crashing=$5 work=$6 plain_dir=$7 hanging=$8 verdicts=${9:-} plain_gtest=${10:-} instrumented=${11:-}
benign_race=${12:-} benign_race_supp=${13:-} task_buggy=${14:-} task_fixed=${15:-}
plain=$plain_dir/plain_abba_deadlock
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# Explores the bank account example with PCT; leaves the trace in out/.
find_bank_account_bug() {
  run "$heddle" test "$buggy" --iterations 10000 --strategy pct:3 --out out
  expect_exit 1
  trace=out/account.concurrent_withdrawals/bug-1.json
  expect_file "$trace"
}

case $case_name in
  readme_flag_table_matches_what_each_command_takes)
    # Every flag of README.md's table is accepted by every command its
    # "taken by" column names (each command's --help lists its flags).
    readme="$script_dir/../../README.md"
    rows=$(grep -E '^\| `--[a-z-]+' "$readme") || fail "no flag table in README.md"
    while IFS= read -r row; do
      flag=$(sed -E 's/^\| `(--[a-z-]+).*/\1/' <<<"$row")
      commands=$(awk -F' \\| ' '{print $NF}' <<<"$row" | tr -d '`|,')
      [[ -n $commands ]] || fail "README.md's row for $flag names no command"
      for command in $commands; do
        run "$heddle" "$command" --help
        [[ $out == *"$flag"* ]] || fail "README.md says heddle $command takes $flag, but its --help does not list it"
      done
    done <<<"$rows"
    ;;

  test_refuses_a_binary_without_heddle_tests_without_running_it)
    run "$heddle" test "$plain_gtest"
    expect_one_line_error "is not a heddle test binary (it does not link heddle::main, so it was not run"
    [[ ! -e plain_gtest_ran ]] || fail "heddle test ran the plain GoogleTest binary's suite"
    run "$heddle" list "$plain_gtest"
    expect_one_line_error "is not a heddle test binary"
    [[ ! -e plain_gtest_ran ]] || fail "heddle list ran the plain GoogleTest binary's suite"
    # Built with heddle-cc/heddle-c++ but no HEDDLE_TEST: heddle run is the way.
    run "$heddle" test "$instrumented"
    expect_one_line_error "is built with heddle-cc/heddle-c++ but has no HEDDLE_TEST: run the program itself with \`heddle run -- "
    ;;

  dpor_verdict_names_its_scope_for_relaxed_atomics)
    # Relaxed double-checked locking passes under sequential consistency only:
    # the verdict must not say plain "verified".
    run "$heddle" test "$verdicts" --filter 'verdict.relaxed*' --strategy dpor --parallel 0
    expect_exit 0
    expect_stdout "verdict.relaxed_double_checked_locking  passed: explored all"
    expect_stdout "verified for sequentially consistent interleavings only"
    expect_stdout "not checked: all "
    expect_stdout "weaker than seq_cst"
    [[ $out != *"(verified)"* ]] || fail "a relaxed test was called plainly verified"
    run "$heddle" test "$verdicts" --filter 'verdict.relaxed*' --strategy dpor --parallel 0 --format json
    expect_exit 0
    python3 - "$out" <<'PY' || fail "the JSON summary does not carry the scope"
import json, sys
t = json.loads(sys.argv[1])["tests"][0]
assert t["stats"]["weak_order_iterations"] == t["stats"]["iterations"] > 0, t["stats"]
assert "sequentially consistent interleavings only" in t["verdict"], t["verdict"]
assert any("weaker than seq_cst" in c for c in t["caveats"]), t["caveats"]
PY
    # The seq_cst twin is verified without qualification.
    run "$heddle" test "$verdicts" --filter 'verdict.seq_cst*' --strategy dpor --parallel 0
    expect_exit 0
    expect_stdout "(verified)"
    [[ $out != *"not checked"* ]] || fail "a seq_cst test got a caveat"
    ;;

  iterations_cut_at_max_steps_are_never_a_plain_pass)
    run "$heddle" test "$verdicts" --filter 'verdict.long*' --iterations 7 --max-steps 300 --strategy random
    expect_exit 0
    expect_stdout "verdict.long_running  passed 7 iterations, all cut at --max-steps 300: nothing after step 300 was checked"
    expect_stdout "raise it (--max-steps 3000)"
    expect_stdout "heddle: no bug found, but 1 test was cut at --max-steps"
    [[ $out != *"passed: no bug"* ]] || fail "a cut run reads as a plain pass"
    run "$heddle" test "$verdicts" --filter 'verdict.long*' --iterations 7 --max-steps 300 --strategy random --format json
    expect_exit 0
    python3 - "$out" <<'PY' || fail "the JSON summary does not count the cut iterations"
import json, sys
t = json.loads(sys.argv[1])["tests"][0]
assert t["stats"]["max_steps_hits"] == 7 and t["stats"]["max_steps"] == 300, t["stats"]
assert t["verdict"].startswith("passed 7 iterations, all cut at --max-steps 300"), t["verdict"]
PY
    # Asked to, a cut iteration is a bug.
    run "$heddle" test "$verdicts" --filter 'verdict.long*' --iterations 7 --max-steps 300 --strategy random --fail-on-max-steps
    expect_exit 1
    expect_stdout "livelock"
    # With room enough, a plain pass.
    run "$heddle" test "$verdicts" --filter 'verdict.long*' --iterations 7 --strategy random
    expect_exit 0
    expect_stdout "verdict.long_running  passed: no bug in 7 iterations"
    ;;

  run_says_its_iterations_were_cut_at_max_steps)
    run "$heddle" run --iterations 3 --max-steps 100 -- "$plain_dir/plain_many_steps"
    expect_exit 0
    expect_stderr "heddle: passed 3 iterations, all cut at --max-steps 100: nothing after step 100 was checked"
    expect_stderr "not checked: all 3 iterations ended at --max-steps 100"
    [[ $err != *"no bug found"* ]] || fail "a cut run reads as a plain pass"
    run "$heddle" run --iterations 3 --max-steps 100 --format json -- "$plain_dir/plain_many_steps"
    expect_exit 0
    python3 - "$out" <<'PY' || fail "heddle run's JSON summary does not count the cut iterations"
import json, sys
j = json.loads(sys.argv[1].strip().splitlines()[-1])
assert j["max_steps_hits"] == 3 and j["max_steps"] == 100, j
assert j["verdict"].startswith("passed 3 iterations, all cut"), j
PY
    run "$heddle" run --iterations 3 -- "$plain_dir/plain_many_steps"
    expect_exit 0
    expect_stderr "heddle: no bug found in 3 iteration(s)"
    ;;

  run_of_a_program_with_its_own_malloc_that_calls_syscall)
    # mold links mimalloc, which calls syscall(SYS_getrandom) while it sets up
    # its first heap, before main. libheddle-rt's syscall() looked the C
    # library's up with dlopen at its first call, which allocated, re-entered
    # the half-set-up malloc, and the program died before main (mold: a
    # mimalloc assertion; own_malloc.c: a stack overflow), on both backends.
    for backend in threads fibers; do
      run "$heddle" run --iterations 30 --backend $backend --out out --check 'grep -qx "count 6"' \
        -- "$plain_dir/plain_own_malloc"
      expect_exit 0
      expect_stderr "heddle: no bug found in 30 iteration(s)"
      [[ $err != *"outside an iteration"* ]] || fail "own_malloc died outside an iteration on $backend"
    done
    ;;

  run_hang_in_an_unmodelled_futex_says_why)
    # A futex wait made with the program's own system call instruction blocks
    # the only thread allowed to run: the hang report says it is a call heddle
    # does not model, not only where the program is blocked.
    run "$heddle" run --iterations 1 --iteration-timeout 1s --out out -- "$plain_dir/plain_own_futex"
    expect_exit 1
    expect_stderr "hang: the iteration made no progress within --iteration-timeout: operation 1 (main) is blocked in futex() (FUTEX_WAIT on 0x"
    expect_stderr "(a futex call heddle does not model: made with the program's or a library's own system call instruction, not through syscall(); heddle traps only libgomp's)"
    ;;

  run_tells_the_program_the_cpus_it_would_have)
    # The fork server pins itself and its iterations to one CPU; nproc (and
    # TBB's default arena, xz -T0, Rust's available_parallelism, which size
    # their threads by the affinity mask) read 1 under heddle and ran with one
    # thread. Controlled threads are told the mask the process had.
    expected=$(nproc)
    for backend in threads fibers; do
      run "$heddle" run --iterations 3 --backend $backend --check "grep -qx $expected" -- "$(command -v nproc)"
      expect_exit 0
    done
    ;;

  run_of_an_uninstrumented_program_is_never_verified)
    # A program built without heddle-cc is scheduled at its synchronization
    # calls only: dfs and dpor exhaust those, and said "verified" of programs
    # whose other accesses (an uninstrumented TBB queue's atomics) heddle
    # never saw. Now the verdict says what was explored, and a caveat why it
    # is not verified.
    for strategy in dfs dpor; do
      run "$heddle" run --iterations 1000 --strategy $strategy -- "${plain}_fixed"
      expect_exit 0
      expect_stderr "heddle: passed: explored all "
      expect_stderr " of its synchronization calls (not verified: its memory accesses are not instrumented)"
      expect_stderr "heddle: not checked: the program is not built with heddle-cc/heddle-c++: the schedules explored order its pthread, futex and signal calls, not its memory accesses or atomics"
      [[ $err != *"(verified)"* ]] || fail "an uninstrumented program was verified under $strategy"
      run "$heddle" run --iterations 1000 --strategy $strategy --format json -- "${plain}_fixed"
      expect_exit 0
      python3 - "$out" <<'PY' || fail "heddle run's JSON summary calls an uninstrumented program verified"
import json, sys
j = json.loads(sys.argv[1].strip().splitlines()[-1])
assert j["exhausted"] and not j["verified"], j
assert "of its synchronization calls (not verified" in j["verdict"], j
assert any("not built with heddle-cc" in c for c in j["caveats"]), j
PY
    done
    # An instrumented one is still verified when its schedules are exhausted.
    run "$heddle" run --iterations 1000 --strategy dfs --suppressions "$benign_race_supp" -- "$benign_race"
    expect_exit 0
    [[ $err != *"of its synchronization calls"* ]] || fail "an instrumented program read as uninstrumented"
    ;;

  list_shows_the_tests_with_locations)
    run "$heddle" list "$buggy"
    expect_exit 0
    expect_stdout "account.concurrent_withdrawals"
    expect_stdout "bank_account.cpp:"
    run "$heddle" list "$crashing"
    expect_exit 0
    expect_stdout "crash.write_through_unpublished_pointer"
    expect_stdout "crash.never_reached_after_the_crash"
    run "$heddle" list "$crashing" --filter 'crash.never*'
    expect_exit 0
    expect_stdout "crash.never_reached_after_the_crash"
    [[ $out != *write_through* ]] || fail "--filter did not leave out crash.write_through_unpublished_pointer"
    run "$heddle" list "$crashing" --filter 'crash.*-crash.never*'
    expect_exit 0
    expect_stdout "crash.write_through_unpublished_pointer"
    [[ $out != *never_reached* ]] || fail "the negative filter did not leave out crash.never_reached_after_the_crash"
    ;;

  test_finds_the_example_bug_and_prints_a_replay_command)
    find_bank_account_bug
    expect_stdout "account.concurrent_withdrawals  BUG"
    expect_stdout "assertion: assertion failed: balance >= 0"
    expect_stdout "replay: heddle replay out/account.concurrent_withdrawals/bug-1.json"
    # The report streams through from the test binary.
    expect_stderr "bug found in account.concurrent_withdrawals"
    expect_stderr "(alice)"
    expect_stderr "(bob)"
    expect_stderr "minimized: "
    ;;

  no_minimize_saves_the_trace_as_found)
    run "$heddle" test "$buggy" --iterations 10000 --strategy pct:3 --out out --no-minimize
    expect_exit 1
    expect_stderr "bug found in account.concurrent_withdrawals"
    [[ $err != *"minimized: "* ]] || fail "--no-minimize: the report still shows a minimized trace"
    python3 - out/account.concurrent_withdrawals/bug-1.json <<'PY' || fail "the trace file holds a minimized trace"
import json, sys
t = json.load(open(sys.argv[1]))
assert "original" not in t, sorted(t)
PY
    ;;

  replay_of_the_written_trace_reproduces_the_bug)
    find_bank_account_bug
    for round in 1 2; do
      run "$heddle" replay "$trace"
      expect_exit 1
      expect_stderr "replayed account.concurrent_withdrawals (iteration "
      expect_stderr "): bug reproduced"
      expect_stderr "bug reproduced: assertion: assertion failed: balance >= 0"
    done
    ;;

  task_test_finds_the_same_bug_with_any_number_of_workers_and_replays_it)
    # Coroutine tasks through the CLI (examples/task_account.cpp, a lost
    # update across a co_await): for each strategy, one process and two
    # workers find the bug at the same iteration and save the same trace,
    # which replays; the fixed twin passes 2,000 iterations on two workers.
    for strategy in random pct:3 pctt:2 portfolio; do
      name=${strategy//:/}
      for workers in 0 2; do
        run "$heddle" test "$task_buggy" --iterations 2000 --strategy $strategy --seed 17 --parallel $workers \
          --out out-$name-$workers --json-out $name-$workers.json
        expect_exit 1
        expect_stderr "assertion failed: shared.balance + withdrawn == 100"
      done
      python3 - $name-0.json $name-2.json <<'PY' || fail "$strategy: two workers report another bug than one process"
import json, sys
a, b = (json.load(open(p))["tests"][0] for p in sys.argv[1:])
assert a["bug"]["kind"] == "assertion", a["bug"]
assert a["bug"]["file"].endswith("task_account.cpp"), a["bug"]
for f in ["status", "iteration", "bug"]:
    assert a.get(f) == b.get(f), (f, a.get(f), b.get(f))
PY
      trace=out-$name-0/task_account.concurrent_withdrawals/bug-1.json
      cmp "$trace" out-$name-2/task_account.concurrent_withdrawals/bug-1.json ||
        fail "$strategy: two workers saved another trace than one process"
      run "$heddle" replay "$trace"
      expect_exit 1
      expect_stderr "bug reproduced: assertion: assertion failed: shared.balance + withdrawn == 100"
    done
    run "$heddle" test "$task_fixed" --iterations 2000 --parallel 2
    expect_exit 0
    expect_stdout "passed: no bug in 2000 iterations"
    ;;

  iteration_numbers_agree_everywhere)
    # One numbering (from 0, docs/reports.md): the report, the JSON summary,
    # the trace header, the HTML report and `heddle report` say the same.
    run "$heddle" test "$buggy" --iterations 10000 --strategy pct:3 --out out --format json --no-minimize
    expect_exit 1
    python3 - "$work/stdout" "$work/stderr" <<'PY' || fail "the iteration numbers disagree (see above)"
import json, re, sys
s = json.load(open(sys.argv[1]))
[t] = s["tests"]
n = t["iteration"]
assert t["bugs"][0]["first_iteration"] == n, (t["bugs"][0]["first_iteration"], n)
for text, where in ((open(sys.argv[2]).read(), "stderr"), (t["report"], "report")):
    m = re.search(r"bug found in account.concurrent_withdrawals \(iteration (\d+), ", text)
    assert m and int(m.group(1)) == n, (where, m and m.group(1), n)
trace = json.load(open(t["trace_file"]))
assert trace["iteration"] == n, (trace["iteration"], n)
html = open(t["trace_file"][:-5] + ".html").read()
assert f"iteration <code>{n}</code>" in html, "the HTML report's iteration"
open("iteration", "w").write(str(n))
PY
    run "$heddle" report out/account.concurrent_withdrawals/bug-1.json
    expect_exit 0
    expect_stdout "iteration $(cat iteration))"
    ;;

  replay_of_a_pasted_compact_trace_reproduces_the_bug)
    find_bank_account_bug
    compact=$(grep -o 'heddle:1:[A-Za-z0-9_-]*' "$work/stderr" | head -n 1)
    [[ -n $compact ]] || fail "the report has no compact 'trace:  heddle:1:...' line"
    run "$heddle" replay "$compact"
    expect_exit 1
    expect_stderr "bug reproduced: assertion: assertion failed: balance >= 0"
    printf '%s\n' "$compact" >bug.trace
    run "$heddle" replay bug.trace
    expect_exit 1
    expect_stderr "bug reproduced: assertion: assertion failed: balance >= 0"
    ;;

  fixed_twin_passes)
    run "$heddle" test "$fixed" --iterations 10000 --strategy pct:3 --out out
    expect_exit 0
    expect_stdout "account.concurrent_withdrawals_fixed  passed: no bug in 10000 iterations"
    expect_stdout "no bug found"
    [[ ! -e out/account.concurrent_withdrawals_fixed ]] || fail "a passing run wrote a trace"
    ;;

  json_summary_parses_and_has_the_fields)
    run "$heddle" test "$buggy" --iterations 10000 --strategy pct:3 --out out --format json
    expect_exit 1
    python3 - "$work/stdout" <<'PY' || fail "the JSON summary is wrong (see above)"
import json, os, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "bug" and s["exit_code"] == 1, s
assert s["program"].endswith("bank_account"), s["program"]
[t] = s["tests"]
assert t["test"] == "account.concurrent_withdrawals", t["test"]
assert t["status"] == "bug", t["status"]
assert t["bug"]["kind"] == "assertion", t["bug"]
assert t["bug"]["message"] == "assertion failed: balance >= 0", t["bug"]
assert t["bug"]["line"] > 0 and t["bug"]["file"].endswith("bank_account.cpp"), t["bug"]
assert os.path.isfile(t["trace_file"]), t["trace_file"]
assert t["replay"] == "heddle replay " + t["trace_file"], t["replay"]
assert t["stats"]["iterations"] >= 1, t["stats"]
assert "interleaving" in t["report"], t["report"]
PY
    run "$heddle" test "$fixed" --iterations 200 --format json --out out
    expect_exit 0
    python3 - "$work/stdout" <<'PY' || fail "the JSON summary of the fixed twin is wrong (see above)"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "passed" and s["exit_code"] == 0, s
[t] = s["tests"]
assert t["status"] == "passed" and t["stats"]["iterations"] == 200, t
assert "bug" not in t, t
PY
    ;;

  crash_is_a_bug_with_a_saved_trace_that_replays)
    # Workers (the default): the parent writes the crashed iteration's trace
    # from the worker's step log, and the binary goes on with the next test.
    run "$heddle" test "$crashing" --iterations 1000 --parallel 2 --out out
    expect_exit 1
    expect_stdout "crash.write_through_unpublished_pointer  BUG"
    expect_stdout "crash: SIGSEGV"
    expect_stdout "trace:  out/crash.write_through_unpublished_pointer/bug-1.json"
    expect_stdout "replay: heddle replay out/crash.write_through_unpublished_pointer/bug-1.json"
    expect_stdout "crash.never_reached_after_the_crash  passed"
    expect_file out/crash.write_through_unpublished_pointer/bug-1.json
    run "$heddle" replay out/crash.write_through_unpublished_pointer/bug-1.json
    expect_exit 1
    expect_stderr "crash: SIGSEGV"
    expect_stderr "bug reproduced: crash.write_through_unpublished_pointer died of SIGSEGV"
    [[ ! -e heddle-out ]] || fail "the replay saved the crash's schedule again, into heddle-out/"
    # In the test process (--parallel 0): the crash handler saves the schedule
    # and the binary dies with it.
    run "$heddle" test "$crashing" --iterations 1000 --parallel 0 --out in-process
    expect_exit 1
    expect_stdout "crash: SIGSEGV"
    expect_stdout "trace:  in-process/crash.write_through_unpublished_pointer/bug-1.trace"
    expect_stdout "crash.never_reached_after_the_crash  not run"
    run "$heddle" replay in-process/crash.write_through_unpublished_pointer/bug-1.trace
    expect_exit 1
    expect_stderr "bug reproduced: crash.write_through_unpublished_pointer died of SIGSEGV"
    ;;

  progress_is_drawn_on_a_terminal_and_not_elsewhere)
    command -v script >/dev/null || fail "script(1) (util-linux) is needed to give the run a terminal"
    script -qec "'$heddle' test '$fixed' --iterations 20000 --parallel 1 --out out" /dev/null >"$work/tty" 2>&1
    rc=$?
    tty_output=$(tr '\r' '\n' <"$work/tty")
    [[ $rc == 0 ]] || fail "the run on a terminal exited with $rc: $tty_output"
    [[ $tty_output == *"heddle: "*"/20000 iterations, "*" it/s, 0 bugs, "*" elapsed, "*" left"* ]] ||
      fail "no progress line on a terminal: $tty_output"
    run "$heddle" test "$fixed" --iterations 20000 --parallel 1 --out out
    expect_exit 0
    [[ $err != *"it/s"* && $out != *"it/s"* && $err != *$'\r'* ]] || fail "a progress line was drawn without a terminal"
    ;;

  explore_groups_bugs_and_json_out_has_the_statistics)
    run "$heddle" test "$buggy" --iterations 3000 --strategy random --explore --parallel 2 --out out --json-out run.json
    expect_exit 1
    expect_stdout "account.concurrent_withdrawals  BUG"
    expect_stdout "steps per iteration"
    expect_stdout "distinct schedules"
    expect_stdout "2 workers"
    expect_stdout "iterations, first in iteration"
    expect_file run.json
    python3 - run.json <<'PY' || fail "the --json-out summary is wrong (see above)"
import json, os, sys
s = json.load(open(sys.argv[1]))
assert s["schema"] == "heddle-summary" and s["schema_version"] == 1, s.get("schema")
assert s["run"]["parallel"] == 2 and s["run"]["explore"] is True, s["run"]
[t] = s["tests"]
st = t["stats"]
assert st["iterations"] == 3000, st["iterations"]
assert st["steps_min"] <= st["steps_mean"] <= st["steps_max"], st
assert st["distinct_schedules"] == len(st["schedule_hashes"]) > 1, st["distinct_schedules"]
assert st["max_enabled"] >= 2 and st["workers"] == 2, st
[g] = t["bugs"]
assert g["kind"] == "assertion" and g["count"] == st["buggy_iterations"] > 1, (g["count"], st["buggy_iterations"])
assert os.path.isfile(g["trace_file"]) and g["trace"].startswith("heddle:1:"), g
assert g["minimized_trace"].startswith("heddle:1:"), g
PY
    ;;

  shards_merge_to_the_unsharded_counts)
    run "$heddle" test "$buggy" --iterations 1200 --strategy random --explore --record-iterations --out out --json-out all.json
    expect_exit 1
    for k in 0 1 2; do
      run "$heddle" test "$buggy" --iterations 1200 --strategy random --explore --record-iterations --shard $k/3 --out out --json-out shard-$k.json
      expect_exit 1
    done
    run "$heddle" merge shard-0.json shard-1.json shard-2.json --json-out merged.json
    expect_exit 1
    expect_stdout "3 shard results merged"
    expect_stdout "account.concurrent_withdrawals  BUG found after 1200 iterations"
    python3 - all.json merged.json <<'PY' || fail "the merged summary differs from the unsharded one (see above)"
import json, sys
whole, merged = (json.load(open(p))["tests"][0] for p in sys.argv[1:])
for f in ["iterations", "steps_total", "steps_min", "steps_max", "max_enabled", "buggy_iterations", "distinct_schedules"]:
    assert whole["stats"][f] == merged["stats"][f], (f, whole["stats"][f], merged["stats"][f])
assert whole["iterations"] == merged["iterations"], "per-iteration schedules differ"
assert [g["count"] for g in whole["bugs"]] == [g["count"] for g in merged["bugs"]]
PY
    # GoogleTest's protocol: the binary takes the shard from the environment and touches the status file.
    # (random learns nothing: its shards take every third index, 100 of 300.)
    GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=1 GTEST_SHARD_STATUS_FILE="$work/status" \
      run "$heddle" test "$fixed" --iterations 300 --strategy random --parallel 1 --out out --format json
    expect_exit 0
    expect_file "$work/status"
    python3 - "$work/stdout" <<'PY' || fail "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS were not taken as the shard"
import json, sys
[t] = json.load(open(sys.argv[1]))["tests"]
assert t["shard"] == {"index": 1, "count": 3}, t["shard"]
assert t["stats"]["iterations"] == 100, t["stats"]["iterations"]
PY
    cp "$work/stdout" gtest-shard.json
    run "$heddle" merge does-not-exist.json
    expect_one_line_error "cannot read 'does-not-exist.json'"
    run "$heddle" merge gtest-shard.json
    expect_exit 0
    expect_stdout "passed: no bug in 100 iterations"
    echo '{"tests": 3}' >bad.json
    run "$heddle" merge bad.json
    expect_one_line_error "'bad.json' is not a heddle JSON summary"
    ;;

  workers_and_shards_report_what_one_process_reports)
    # Same seed, same result (docs/running.md): for each strategy, 2 workers
    # (three times) and 4 report the first bug of the run in one process, at
    # the same iteration, with a byte-identical trace file and the same counts.
    same_run() {  # same_run REFERENCE OTHER: the two runs' first test agrees
      python3 - "$1" "$2" <<'PY' || fail "$2 differs from $1 (see above)"
import json, sys
a, b = (json.load(open(p))["tests"][0] for p in sys.argv[1:])
for f in ["status", "iteration", "bug"]:
    assert a.get(f) == b.get(f), (f, a.get(f), b.get(f))
for f in ["iterations", "buggy_iterations", "steps_total", "distinct_schedules"]:
    assert a["stats"][f] == b["stats"][f], (f, a["stats"][f], b["stats"][f])
assert [(g["signature"], g["count"], g["first_iteration"]) for g in a["bugs"]] == \
       [(g["signature"], g["count"], g["first_iteration"]) for g in b["bugs"]]
assert a.get("iterations") == b.get("iterations"), "per-iteration schedules differ"
PY
    }
    for strategy in random pct:3 surw ql portfolio; do
      name=${strategy//:/}
      run "$heddle" test "$buggy" --iterations 400 --strategy $strategy --parallel 0 --record-iterations \
        --out out-$name-0 --json-out $name-0.json
      expect_exit 1
      for workers in 2 2 2 4; do
        rm -rf out-$name-$workers
        run "$heddle" test "$buggy" --iterations 400 --strategy $strategy --parallel $workers --record-iterations \
          --out out-$name-$workers --json-out $name-$workers.json
        expect_exit 1
        same_run $name-0.json $name-$workers.json
        cmp out-$name-0/account.concurrent_withdrawals/bug-1.json out-$name-$workers/account.concurrent_withdrawals/bug-1.json ||
          fail "$strategy with $workers workers saved another trace than in one process"
        [[ ! -e out-$name-$workers/account.concurrent_withdrawals/bug-2.json ]] ||
          fail "$strategy with $workers workers saved a second trace"
      done
      # Shards with --explore merge into the unsharded run, iteration for iteration.
      run "$heddle" test "$buggy" --iterations 400 --strategy $strategy --explore --no-minimize --record-iterations \
        --parallel 0 --out out --json-out explore-$name.json
      expect_exit 1
      for k in 0 1; do
        run "$heddle" test "$buggy" --iterations 400 --strategy $strategy --explore --no-minimize --record-iterations \
          --parallel $((k + 1)) --shard $k/2 --out out --json-out explore-$name-$k.json
        # Shards own whole learning windows: under ql (1,024) shard 1 has none of 400.
        [[ $rc == 0 || $rc == 1 ]] || fail "expected exit status 0 or 1, got $rc"
      done
      run "$heddle" merge explore-$name-0.json explore-$name-1.json --json-out explore-$name-merged.json
      expect_exit 1
      same_run explore-$name.json explore-$name-merged.json
    done
    ;;

  time_budget_and_sigint_stop_cleanly_with_a_summary)
    run "$heddle" test "$fixed" --iterations 100000000 --time-budget 1s --parallel 2 --out out --json-out budget.json
    expect_exit 0
    expect_stdout "passed: no bug in"
    expect_file budget.json
    run_interrupted "$heddle" test "$fixed" --iterations 100000000 --parallel 2 --out out --json-out interrupted.json
    expect_exit 0
    expect_stdout "passed: no bug in"
    expect_file interrupted.json
    python3 - interrupted.json <<'PY' || fail "the interrupted run's summary is wrong (see above)"
import json, sys
[t] = json.load(open(sys.argv[1]))["tests"]
assert t["interrupted"] is True, t
assert 0 < t["stats"]["iterations"] < 100000000, t["stats"]["iterations"]
PY
    ;;

  sigint_stops_a_binary_of_many_tests_at_the_first)
    # One Ctrl-C stops the whole binary, not only the test it lands in: the
    # interrupted test says it stopped early, the tests after it run nothing
    # and say so (not a pass).
    run_interrupted "$heddle" test "$verdicts" --filter 'verdict.seq_cst*:verdict.long*' --iterations 100000000 \
      --strategy random --parallel 2 --out out --json-out interrupted.json
    expect_exit 0
    expect_stdout "verdict.seq_cst_double_checked_locking  passed: no bug in"
    expect_stdout "(stopped early: interrupted by SIGINT or SIGTERM)"
    expect_stdout "verdict.long_running  not run (interrupted by SIGINT or SIGTERM before it began)"
    expect_stdout "heddle: no bug found before the interrupt: 2 tests stopped early or did not run"
    python3 - interrupted.json <<'PY' || fail "the interrupted run's summary is wrong (see above)"
import json, sys
first, second = json.load(open(sys.argv[1]))["tests"]
assert first["status"] == "passed" and first["interrupted"] is True, first
assert 0 < first["stats"]["iterations"] < 100000000, first["stats"]["iterations"]
assert second["status"] == "not_run" and second["interrupted"] is True, second
assert second["stats"]["iterations"] == 0 and second["verified"] is False, second
PY
    ;;

  run_sigint_stops_cleanly_with_a_summary)
    # heddle run: Ctrl-C reaches the fork server and the iteration's child
    # alike; the run stops after that iteration, does not judge it (no bug, no
    # "died of SIGINT"), and its summary says it stopped early.
    run_interrupted "$heddle" run --iterations 100000000 --format json --out out -- "$plain_dir/plain_abba_deadlock_fixed"
    expect_exit 0
    expect_stderr "; stopped early: interrupted by SIGINT or SIGTERM)"
    [[ $err != *"died of"* ]] || fail "the interrupt was reported as a death"
    python3 - "$work/stdout" <<'PY' || fail "the interrupted run's summary is wrong (see above)"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert s["status"] == "passed" and s["interrupted"] is True, s
assert 0 < s["iterations"] < 100000000, s["iterations"]
assert s["verdict"].endswith(" (stopped early: interrupted by SIGINT or SIGTERM)"), s["verdict"]
assert s["verified"] is False, s
PY
    ;;

  run_stops_when_heddle_is_killed)
    # The fork server does not outlive the heddle that started it, even one
    # killed with SIGKILL, which can tell nobody.
    start_background "$heddle" run --iterations 100000000 --out out -- "$plain_dir/plain_abba_deadlock_fixed"
    kill -KILL $pid
    wait_gone $child 30 "the fork server, after heddle was killed,"
    ;;

  sigterm_to_heddle_alone_stops_the_run_cleanly)
    # A SIGTERM for the CLI's process only (a `timeout` around heddle) goes on
    # to what it runs: heddle test and heddle run stop cleanly, with a summary.
    # A SIGKILL for the CLI leaves no test binary behind.
    start_background "$heddle" test "$fixed" --iterations 100000000 --parallel 2 --out out --json-out term.json
    stop_background TERM
    expect_exit 0
    expect_stdout "(stopped early: interrupted by SIGINT or SIGTERM)"
    start_background "$heddle" run --iterations 100000000 -- "$plain_dir/plain_abba_deadlock_fixed"
    stop_background TERM
    expect_exit 0
    expect_stderr "; stopped early: interrupted by SIGINT or SIGTERM)"
    start_background "$heddle" test "$fixed" --iterations 100000000 --parallel 0 --out out
    kill -KILL $pid
    wait_gone $child 30 "the test binary, after heddle was killed,"
    ;;

  unknown_strategy_is_one_line_and_exit_2)
    run "$heddle" test "$buggy" --strategy bogus --out out
    expect_one_line_error "unknown strategy 'bogus'"
    run "$heddle" test "$buggy" --strategy pct:many --out out
    expect_one_line_error "bad strategy spec 'pct:many'"
    [[ ! -e out ]] || fail "the test binary ran despite the bad strategy"
    ;;

  bad_number_is_one_line_and_exit_2)
    run "$heddle" test "$buggy" --iterations 12abc
    expect_one_line_error "bad value '12abc' for --iterations"
    run "$heddle" test "$buggy" --max-steps -5
    expect_one_line_error "--max-steps"
    run "$heddle" test "$buggy" --seed lucky
    expect_one_line_error "bad value 'lucky' for --seed"
    run "$heddle" test "$buggy" --time-budget 10parsecs
    expect_one_line_error "bad value '10parsecs' for --time-budget"
    run "$heddle" test "$buggy" --format xml
    expect_one_line_error "--format"
    run "$heddle" test "$buggy" --memory most
    expect_one_line_error "bad value 'most' for --memory: expected all, shared or none"
    run "$heddle" test "$buggy" --memory-model tso
    expect_one_line_error "bad value 'tso' for --memory-model: expected sc or rc11"
    run "$heddle" test "$buggy" --detect-races maybe
    expect_one_line_error "bad value 'maybe' for --detect-races"
    ;;

  missing_binary_is_one_line_and_exit_2)
    run "$heddle" test ./no-such-binary
    expect_one_line_error "cannot run test binary './no-such-binary'"
    touch not-executable
    run "$heddle" test ./not-executable
    expect_one_line_error "not executable"
    run "$heddle" list ./no-such-binary
    expect_one_line_error "no-such-binary"
    find_bank_account_bug
    run "$heddle" replay "$trace" --program ./no-such-binary
    expect_one_line_error "cannot run program './no-such-binary'"
    ;;

  malformed_trace_is_one_line_and_exit_2)
    printf '{ "format": "heddle-trace", "steps": [ \n' >broken.json
    run "$heddle" replay broken.json
    expect_one_line_error "malformed trace: not valid JSON"
    printf 'this is not a trace\n' >garbage.txt
    run "$heddle" replay garbage.txt
    expect_one_line_error "malformed trace"
    printf '{"format": "heddle-trace", "version": 1}\n' >fieldless.json
    run "$heddle" replay fieldless.json
    expect_one_line_error "malformed trace"
    run "$heddle" replay no-such-trace.json
    expect_one_line_error "cannot read trace file 'no-such-trace.json'"
    : >empty.json
    run "$heddle" replay empty.json
    expect_one_line_error "empty"
    ;;

  truncated_compact_trace_is_one_line_and_exit_2)
    find_bank_account_bug
    compact=$(grep -o 'heddle:1:[A-Za-z0-9_-]*' "$work/stderr" | head -n 1)
    [[ -n $compact ]] || fail "the report has no compact trace line"
    printf '%s\n' "${compact:0:${#compact}-7}" >truncated.trace
    run "$heddle" replay truncated.trace
    expect_one_line_error "malformed compact trace"
    run "$heddle" replay "${compact:0:40}"
    expect_one_line_error "malformed compact trace"
    head -c 300 "$trace" >truncated.json
    run "$heddle" replay truncated.json
    expect_one_line_error "malformed trace"
    ;;

  trace_of_another_test_is_one_line_and_exit_2)
    find_bank_account_bug
    run "$heddle" replay "$trace" --program "$fixed"
    expect_one_line_error "belongs to test 'account.concurrent_withdrawals', which '$fixed' does not have"
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
t["test"] = "account.concurrent_withdrawals_fixed"
json.dump(t, open("other_test.json", "w"))' "$trace" || fail "cannot rewrite the trace"
    run "$heddle" replay other_test.json
    expect_one_line_error "belongs to test 'account.concurrent_withdrawals_fixed'"
    ;;

  diverging_trace_names_the_step_and_exits_2)
    find_bank_account_bug
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
t["steps"][2][3] = 99  # the object of step 2 no longer matches the program
json.dump(t, open("diverging.json", "w"))' "$trace" || fail "cannot rewrite the trace"
    run "$heddle" replay diverging.json
    expect_one_line_error "replay diverged: step 2:"
    expect_stderr "object #99"
    # An edited trace is not blamed on the test alone.
    expect_stderr "Likely cause: the trace may not match this binary (edited by hand, or recorded from another build"
    # Another program's trace (here: a copy of the binary elsewhere) is named as such.
    cp "$buggy" ./other_build
    run "$heddle" replay diverging.json --program ./other_build
    expect_exit 2
    expect_stderr "Likely cause: the trace was recorded from $buggy, not from"
    ;;

  version_and_help)
    run "$heddle" --version
    expect_exit 0
    expect_stdout "heddle 0."
    run "$heddle" --help
    expect_exit 0
    for word in list test replay "Exit status"; do expect_stdout "$word"; done
    run "$heddle" test --help
    expect_exit 0
    for word in --filter --iterations --time-budget --strategy --seed --max-steps --fail-on-max-steps --out --format; do
      expect_stdout "$word"
    done
    run "$heddle" replay --help
    expect_exit 0
    expect_stdout "--program"
    run "$heddle" frobnicate
    expect_one_line_error "unknown command 'frobnicate'"
    run "$heddle"
    expect_exit 2
    ;;

  run_bad_input_is_one_line_and_exit_2)
    run "$heddle" run --iterations 10 -- ./no-such-program
    expect_one_line_error "cannot run program './no-such-program': No such file or directory"
    run "$heddle" run --iterations 10 -- "$work"
    expect_one_line_error "it is a directory"
    run "$heddle" run --iterations 10 -- no-such-program-in-path
    expect_one_line_error "cannot run program 'no-such-program-in-path': not found in PATH"
    run "$heddle" run --no-such-flag -- "$plain"
    expect_one_line_error "unknown option '--no-such-flag' for heddle run"
    run "$heddle" run --iterations 10
    expect_one_line_error "no program to run (heddle run [options] -- ./program args...)"
    run "$heddle" run --iterations ten -- "$plain"
    expect_one_line_error "bad value 'ten' for --iterations"
    run "$heddle" run --memory most -- "$plain"
    expect_one_line_error "bad value 'most' for --memory"
    run "$heddle" run --backend green -- "$plain"
    expect_one_line_error "bad value 'green' for --backend: expected fibers or threads"
    # An option missing its value before '--': CLI11 took '--' as the value,
    # and --check '--' failed after iteration 0, reported as the program's
    # bug (exit 1); --out -- wrote the traces to a directory named '--'.
    for option in --check --out --strategy --iterations; do
      run "$heddle" run "$option" -- "$plain"
      expect_one_line_error "option '$option' needs a value, but '--' follows it (see heddle run --help)"
    done
    [[ ! -e -- ]] || fail "heddle run --out -- made a directory named '--'"
    # A flag before '--' takes no value.
    run "$heddle" run --iterations 2 --fail-on-max-steps -- "${plain}_fixed"
    expect_exit 0
    ;;

  engine_flags_are_checked_on_run_and_test)
    # Every engine option is a flag of both commands; a bad value is one line.
    for command in run test; do
      for flag in "--spurious-wakeups maybe" "--spurious-cas-failures often" "--fair-after soon" \
                  "--stack-size 10" "--max-steps 0" "--memory most" "--detect-races perhaps" "--memory-model tso"; do
        read -r name value <<<"$flag"
        if [[ $command == test ]]; then run "$heddle" test "$buggy" "$name" "$value"
        else run "$heddle" run "$name" "$value" -- "$plain"; fi
        expect_one_line_error "bad value '$value' for $name"
      done
    done
    run "$heddle" run --expect-exit 300 -- "$plain"
    expect_one_line_error "bad value '300' for --expect-exit: an exit status is 0 to 255"
    run "$heddle" run --expect-exit -1 -- "$plain"
    expect_exit 2
    # Accepted, and passed on: the fixed twin still passes with them.
    run "$heddle" run --iterations 20 --spurious-wakeups false --spurious-cas-failures false --fair-after 100 \
        --stack-size 65536 --max-steps 5000 --record-iterations --format json -- "$plain_dir/plain_abba_deadlock_fixed"
    expect_exit 0
    expect_stdout '"schedules":'
    run "$heddle" test "$fixed" --iterations 20 --spurious-wakeups false --spurious-cas-failures false --no-progress
    expect_exit 0
    ;;

  spurious_wakeups_flag_and_report)
    # Only a spurious wake-up makes this program fail: the report says so, in
    # the step's row and in the summary line.
    run "$heddle" run --iterations 2000 --out out -- "$plain_dir/plain_spurious_wakeup_in_if"
    expect_exit 1
    expect_stderr "(after a spurious wake-up at step "
    expect_stderr "spurious wake-up from condition_variable #"
    expect_stderr "POSIX allows them; --spurious-wakeups false"
    run "$heddle" replay out/run_plain_spurious_wakeup_in_if/bug-1.json
    expect_exit 1
    expect_stderr "spurious wake-up"
    # Off by the flag, and by HEDDLE_OPTIONS: no bug.
    run "$heddle" run --iterations 2000 --spurious-wakeups false -- "$plain_dir/plain_spurious_wakeup_in_if"
    expect_exit 0
    HEDDLE_OPTIONS="spurious_wakeups=false" run "$heddle" run --iterations 2000 -- "$plain_dir/plain_spurious_wakeup_in_if"
    expect_exit 0
    # Spurious events come only in a share of the iterations: the first 16 of
    # a run take none, so a run that short finds nothing.
    run "$heddle" run --iterations 16 -- "$plain_dir/plain_spurious_wakeup_in_if"
    expect_exit 0
    ;;

  expect_exit_learns_or_takes_the_usual_status)
    # This program exits 6 every time, which is no bug.
    usual=$plain_dir/plain_usual_exit_status_fixed
    run "$heddle" run --iterations 50 --format json -- "$usual"
    expect_exit 0
    expect_stderr "exit status 6 is the program's usual one (learnt from iteration 0; --expect-exit N sets it)"
    expect_stdout '"expected_exit":{"iteration":0,"learnt":true,"status":6}'
    run "$heddle" run --iterations 50 --expect-exit 6 -- "$usual"
    expect_exit 0
    expect_stderr "exit status 6 is the program's usual one (--expect-exit)"
    run "$heddle" run --iterations 50 --expect-exit 0 --out out -- "$usual"
    expect_exit 1
    expect_stderr "exit_code: the program exited with status 6, not 0 (--expect-exit)"
    run "$heddle" replay out/run_plain_usual_exit_status_fixed/bug-1.json
    expect_exit 1
    run "$heddle" run --iterations 50 --exit-code-is-bug false -- "$usual"
    expect_exit 0
    ;;

  compact_trace_of_a_run_keeps_the_expected_exit_status)
    # A pasted one-line trace judges the replay's exit status as the JSON
    # file does: by the status the run expected (here 7), not by 0.
    usual=$plain_dir/plain_usual_exit_status_fixed
    run "$heddle" run --iterations 5 --expect-exit 7 --out out -- "$usual"
    expect_exit 1
    expect_stderr "exit_code: the program exited with status 6, not 7 (--expect-exit)"
    compact=$(grep -o 'heddle:1:[A-Za-z0-9_-]*' "$work/stderr" | head -n 1)
    [[ -n $compact ]] || fail "the report has no compact trace line"
    run "$heddle" replay out/run_plain_usual_exit_status_fixed/bug-1.json
    expect_exit 1
    expect_stderr "the program exited with status 6, not 7"
    run "$heddle" replay "$compact"
    expect_exit 1
    expect_stderr "the program exited with status 6, not 7"
    ;;

  suppressions_file_leaves_out_races_and_counts_them)
    run "$heddle" run --iterations 100 --format json -- "$benign_race"
    expect_exit 1
    expect_stdout '"kind":"data_race"'
    expect_stdout 'peek_hint'
    run "$heddle" run --iterations 100 --format json --suppressions "$benign_race_supp" -- "$benign_race"
    expect_exit 0
    expect_stderr "suppressed (race:peek_hint "
    expect_stdout '"suppressed":{"by_suppression":[{"count":'
    [[ $out =~ \"races\":([0-9]+) ]] && (( BASH_REMATCH[1] > 0 )) || fail "no suppressed races counted in the JSON"
    # The same file through HEDDLE_OPTIONS, as TSAN_OPTIONS takes it.
    HEDDLE_OPTIONS="suppressions=$benign_race_supp" run "$heddle" run --iterations 100 -- "$benign_race"
    expect_exit 0
    expect_stderr "suppressed (race:peek_hint "
    # Wildcards, as ThreadSanitizer's.
    printf '# a comment\n\nrace:*eek_h*\n' >wild.supp
    run "$heddle" run --iterations 100 --suppressions wild.supp -- "$benign_race"
    expect_exit 0
    expect_stderr "race:*eek_h*"
    printf 'race:^hint$\nrace_top:no_such_function\n' >narrow.supp
    run "$heddle" run --iterations 100 --suppressions narrow.supp -- "$benign_race"
    expect_exit 1
    ;;

  bad_suppressions_are_one_line_and_exit_2)
    run "$heddle" run --suppressions missing.supp -- "$plain"
    expect_one_line_error "cannot read suppressions file 'missing.supp' (--suppressions): No such file or directory"
    printf 'race:ok\nrase:typo\n' >typo.supp
    run "$heddle" run --suppressions typo.supp -- "$plain"
    expect_one_line_error "typo.supp:2: unknown suppression type 'rase'"
    printf 'race_top\n' >untyped.supp
    run "$heddle" test "$fixed" --suppressions untyped.supp
    expect_one_line_error "untyped.supp:1: 'race_top' has no type"
    printf 'race:\n' >empty.supp
    run "$heddle" run --suppressions empty.supp -- "$plain"
    expect_one_line_error "empty.supp:1: 'race:' has an empty pattern"
    HEDDLE_OPTIONS="suppressions=missing.supp" run "$heddle" run --iterations 5 -- "$plain"
    expect_one_line_error "cannot read suppressions file 'missing.supp' (suppressions in HEDDLE_OPTIONS)"
    HEDDLE_OPTIONS="verbosity=2" run "$heddle" run --iterations 5 -- "$plain"
    expect_one_line_error "bad entry 'verbosity=2' in HEDDLE_OPTIONS"
    ;;

  replay_bad_input_is_one_line_and_exit_2)
    run "$heddle" replay no-such-trace.json
    expect_one_line_error "cannot read trace file 'no-such-trace.json': No such file or directory"
    mkdir traces
    run "$heddle" replay traces
    expect_one_line_error "cannot read trace file 'traces': it is a directory"
    echo '{"format": "heddle-trace", "version": 1' >broken.json
    run "$heddle" replay broken.json
    expect_one_line_error "malformed trace: not valid JSON"
    if [[ $(id -u) != 0 ]]; then  # root reads a file whatever its mode
      echo '{}' >unreadable.json && chmod 000 unreadable.json
      run "$heddle" replay unreadable.json
      expect_one_line_error "cannot read trace file 'unreadable.json': Permission denied"
    fi
    run "$heddle" replay --no-such-flag broken.json
    expect_one_line_error "unknown option '--no-such-flag' for heddle replay"
    # A push-button trace whose program is gone.
    cp "$plain" ./vanishing
    run "$heddle" run --iterations 1000 --out out -- ./vanishing
    expect_exit 1
    expect_file out/run_vanishing/bug-1.json
    rm vanishing
    run "$heddle" replay out/run_vanishing/bug-1.json
    expect_one_line_error "vanishing': No such file or directory"
    run "$heddle" replay --iteration-timeout soon out/run_vanishing/bug-1.json
    expect_one_line_error "bad value 'soon' for --iteration-timeout"
    ;;

  run_of_an_uninstrumented_program_warns_once_and_finds_the_deadlock)
    warning="is not built with heddle-cc/heddle-c++: its memory accesses are not instrumented"
    run "$heddle" run --iterations 1000 --out out -- "$plain"
    expect_exit 1
    expect_stderr "$warning"
    [[ $(grep -c "not instrumented" "$work/stderr") == 1 ]] || fail "expected the warning exactly once"
    expect_stderr "deadlock: operation 1 (main) waits for mutex"
    expect_file out/run_plain_abba_deadlock/bug-1.json
    run "$heddle" replay out/run_plain_abba_deadlock/bug-1.json
    expect_exit 1
    [[ $(grep -c "not instrumented" "$work/stderr") == 1 ]] || fail "expected the warning exactly once in the replay"
    expect_stderr "bug reproduced"
    # The fixed twin: the same locks taken in one order.
    run "$heddle" run --iterations 1000 --out out -- "${plain}_fixed"
    expect_exit 0
    [[ $(grep -c "not instrumented" "$work/stderr") == 1 ]] || fail "expected the warning exactly once for the twin"
    expect_stderr "no bug found in 1000 iteration(s)"
    # A program named without a slash is looked up in PATH, as a shell does.
    PATH="$plain_dir:$PATH" run "$heddle" run --iterations 1000 --out out -- "$(basename "$plain")"
    expect_exit 1
    expect_stderr "deadlock: operation 1 (main) waits for mutex"
    ;;

  replay_of_a_push_button_hang_stops_at_the_run_timeout)
    run "$heddle" run --iterations 1000 --iteration-timeout 300ms --out out -- "$plain_dir/plain_hang_in_read"
    expect_exit 1
    expect_stderr "hang: the iteration made no progress within --iteration-timeout"
    expect_stderr "blocked in read()"
    trace=out/run_plain_hang_in_read/bug-1.json
    expect_file "$trace"
    grep -q '"iteration_timeout_ms": 300' "$trace" || fail "the trace does not record the run's 300 ms timeout"
    # The replay's watchdog has the run's 300 ms, not the default 10 s: the
    # bound below is generous (a loaded machine), and far below 10 s.
    started=$(date +%s%N)
    run "$heddle" replay "$trace"
    elapsed_ms=$((($(date +%s%N) - started) / 1000000))
    expect_exit 1
    expect_stderr "bug reproduced"
    expect_stderr "hang: the iteration made no progress within --iteration-timeout"
    ((elapsed_ms < 7000)) || fail "the replay took ${elapsed_ms} ms: it did not use the trace's 300 ms timeout"
    # The fixed twin passes (with a generous limit: on a loaded machine a healthy
    # iteration can be descheduled for longer than 300 ms).
    run "$heddle" run --iterations 200 --iteration-timeout 10s --out out -- "$plain_dir/plain_hang_in_read_fixed"
    expect_exit 0
    ;;

  run_check_judges_each_iteration_by_its_output)
    # The twin prints "balance ..." each iteration: a check that wants it passes.
    run "$heddle" run --iterations 50 --out out --check 'grep -q "^balance"' -- "${plain}_fixed"
    expect_exit 0
    # One that wants something else fails at the first iteration, with its
    # status and last line; the trace records the check and that addresses
    # were not randomized, and the replay runs the check again.
    run "$heddle" run --iterations 50 --out out --check 'echo wrong output >&2; exit 3' -- "${plain}_fixed"
    expect_exit 1
    expect_stderr "assertion: the output check failed: 'echo wrong output >&2; exit 3' exited with status 3: wrong output"
    trace=out/run_plain_abba_deadlock_fixed/bug-1.json
    expect_file "$trace"
    grep -q '"check": "echo wrong output >&2; exit 3"' "$trace" || fail "the trace does not record the check"
    grep -q '"address_randomization": "off"' "$trace" || fail "the trace does not say addresses were not randomized"
    grep -q '"clock_realtime_ns"' "$trace" || fail "the trace does not record where the clocks started"
    run "$heddle" replay "$trace"
    expect_exit 1
    expect_stderr "bug reproduced"
    run "$heddle" run --check '' -- "${plain}_fixed"
    expect_one_line_error "bad value '' for --check: expected a shell command"
    ;;

  run_gives_every_iteration_the_same_standard_input)
    # Every child shares the fork server's stdin: without a rewind, iteration 0
    # read the input to its end and iteration 1 found it empty (md5sum printed
    # the sum of nothing and the check failed). From a file and from a pipe,
    # every iteration and the replay read the whole input.
    seq 1 20000 > input
    sum=$(md5sum < input | cut -c1-32)
    run "$heddle" run --iterations 20 --out out --check "grep -q $sum" -- "$(command -v md5sum)" < input
    expect_exit 0
    run sh -c "cat input | '$heddle' run --iterations 20 --out out --check 'grep -q $sum' -- '$(command -v md5sum)'"
    expect_exit 0
    # A check that fails at iteration 0 on the whole input: its replay reads it again.
    run "$heddle" run --iterations 20 --out out --check "grep -q $sum && exit 4" -- "$(command -v md5sum)" < input
    expect_exit 1
    expect_stderr "the output check failed: 'grep -q $sum && exit 4' exited with status 4"
    expect_stderr "iteration 0"
    run "$heddle" replay out/run_md5sum/bug-1.json < input
    expect_exit 1
    expect_stderr "bug reproduced"
    ;;

  run_check_determinism_names_the_thread_id)
    run "$heddle" run --iterations 20 --check-determinism --out out -- "$plain_dir/plain_thread_id_path"
    expect_exit 2
    expect_stderr "heddle: the program is not deterministic: iteration"
    expect_stderr "Likely cause: it read its threads' ids (gettid), which differ in every run"
    # A program that reads no id runs three times per iteration and passes.
    run "$heddle" run --iterations 100 --check-determinism --out out -- "${plain}_fixed"
    expect_exit 0
    ;;

  replay_of_a_test_hang_stops_at_the_run_timeout)
    run "$heddle" test "$hanging" --filter 'hang.read_that_nobody_writes' --iterations 1000 --parallel 1 \
      --iteration-timeout 300ms --out out
    expect_exit 1
    expect_stdout "hang.read_that_nobody_writes  BUG"
    expect_stdout "hang: the iteration did not finish within --iteration-timeout 300 ms"
    # The fixed twin passes, with a generous limit (a healthy iteration on a
    # loaded machine can be descheduled for longer than 300 ms).
    run "$heddle" test "$hanging" --filter 'hang.fixed_both_bytes_written_first' --iterations 1000 --parallel 1 \
      --iteration-timeout 10s --out out-fixed
    expect_exit 0
    expect_stdout "hang.fixed_both_bytes_written_first  passed"
    trace=out/hang.read_that_nobody_writes/bug-1.json
    expect_file "$trace"
    run "$heddle" replay "$trace"
    expect_exit 1
    expect_stderr "bug reproduced: livelock: the replay of hang.read_that_nobody_writes was stopped: not finished within 300ms"
    expect_stderr "the run reported: hang: the iteration did not finish"
    run "$heddle" replay --iteration-timeout 200ms "$trace"
    expect_exit 1
    expect_stderr "not finished within 200ms"
    ;;

  *)
    echo "cli_test.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
echo "PASS [$case_name]"
