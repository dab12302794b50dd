#!/usr/bin/env bash
# HEDDLE_LINCHECK_TEST under the `heddle` CLI, one behaviour per invocation:
#
#   cli_test.sh CASE HEDDLE LINCHECK_BUGGY LINCHECK_FIXED LINCHECK_CRASH WORK_DIR
#
# `heddle list` lists lincheck tests; `heddle test` runs them with its options
# (seed, strategy, --iterations as runs per scenario, --scenarios) and reports
# their failures and crashes (a crash minimized, with a trace `heddle replay`
# replays); HEDDLE_* variables reach a binary run directly.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

case_name=$1 heddle=$2 buggy=$3 fixed=$4 crashing=$5 work=$6
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# json_field FILE EXPRESSION: a value of the JSON summary, through python3.
json_field() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1"; }

case $case_name in
  list_shows_lincheck_tests)
    run "$heddle" list "$buggy"
    expect_exit 0
    expect_stdout "lincheck_stack.size_updated_after_push"
    expect_stdout "lincheck_queue.dequeue_moves_head_without_cas"
    expect_stdout "lincheck_map.get_or_insert_in_two_steps"
    expect_stdout "lincheck_buggy.cpp:"
    run "$heddle" list "$buggy" --filter 'lincheck_map.*'
    expect_exit 0
    expect_stdout "lincheck_map.get_or_insert_in_two_steps"
    [[ $out != *lincheck_stack* ]] || fail "--filter did not leave out lincheck_stack"
    ;;

  test_takes_the_options_and_reports_the_failure)
    run "$heddle" test "$buggy" --filter 'lincheck_stack.*' --strategy pct:3 --seed 7 --scenarios 80 \
      --iterations 40 --json-out summary.json
    expect_exit 1
    expect_stdout "lincheck_stack.size_updated_after_push  BUG"
    expect_stdout "non-linearizable: non-linearizable in scenario"
    expect_stdout "replay: heddle replay heddle-out/lincheck_stack.size_updated_after_push/bug-1.json"
    # The report streams through, naming the options it ran with.
    expect_stderr "heddle lincheck: non-linearizable in scenario"
    expect_stderr "seed 0x7, strategy pct:3, 40 runs per scenario"
    [[ $(json_field summary.json 's["tests"][0]["lincheck"]["strategy"]') == "pct:3" ]] || fail "strategy not passed"
    [[ $(json_field summary.json 's["tests"][0]["lincheck"]["seed"]') == 7 ]] || fail "seed not passed"
    [[ $(json_field summary.json 's["tests"][0]["lincheck"]["runs_per_scenario"]') == 40 ]] || fail "iterations not passed"
    [[ $(json_field summary.json 's["tests"][0]["lincheck"]["scenarios_declared"]') == 80 ]] || fail "scenarios not passed"
    [[ $(json_field summary.json 's["tests"][0]["bug"]["kind"]') == "non-linearizable" ]] || fail "bug kind"
    # The same seed fails the same way; the message names the scenario.
    first=$(json_field summary.json 's["tests"][0]["bug"]["message"]')
    run "$heddle" test "$buggy" --filter 'lincheck_stack.*' --strategy pct:3 --seed 7 --scenarios 80 \
      --iterations 40 --json-out again.json
    expect_exit 1
    [[ $(json_field again.json 's["tests"][0]["bug"]["message"]') == "$first" ]] || fail "same seed, other failure"
    ;;

  non_linearizable_trace_replays_every_time)
    run "$heddle" test "$buggy" --filter 'lincheck_stack.*' --seed 7 --out out --json-out summary.json
    expect_exit 1
    trace=out/lincheck_stack.size_updated_after_push/bug-1.json
    [[ -f $trace ]] || fail "no trace at $trace"
    [[ $(json_field summary.json 's["tests"][0]["trace_file"]') == "$trace" ]] || fail "trace_file not in the summary"
    [[ $(json_field "$trace" 's["bug"]["kind"]') == assertion ]] || fail "the trace records no failed judgement"
    [[ $(json_field "$trace" 's["bug"]["message"]') == "non-linearizable: no order of the calls explains"* ]] ||
      fail "the trace's bug is not the verifier's"
    [[ $(json_field "$trace" 's["arguments"][0]') == lincheck ]] || fail "the trace names no lincheck scenario"
    expect_stderr "The trace of this run: $trace"
    expect_stderr "It fails again with: heddle replay $trace"
    # heddle replay reproduces it every time: the same failure, the same why.
    why=$(json_field summary.json 's["tests"][0]["report"].split("Why: ")[1].split("\n")[0]')
    for i in $(seq 100); do
      run "$heddle" replay "$trace"
      expect_exit 1
      expect_stderr "heddle: bug reproduced: non-linearizable: $why"
    done
    # A trace whose steps were changed does not pass for the failure.
    python3 - "$trace" changed.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["steps"] = t["steps"][:3]
json.dump(t, open(sys.argv[2], "w"))
PY
    run "$heddle" replay changed.json
    expect_exit 2
    expect_stderr "replay diverged"
    ;;

  same_seed_same_failure_and_trace_under_any_parallel)
    # The first failing scenario and its trace depend on the seed only, not
    # on --parallel.
    for p in 0 2; do
      run "$heddle" test "$buggy" --filter 'lincheck_map.*' --seed 11 --parallel $p --out out$p --json-out s$p.json
      expect_exit 1
    done
    report() { json_field "$1" 's["tests"][0]["report"].split("The trace of this run")[0]'; }
    [[ $(report s0.json) == "$(report s2.json)" ]] ||
      fail "--parallel 0 and 2 reported different failures"
    steps() { json_field "$1" 'json.dumps([s["arguments"], s["steps"], s["bug"]["message"]])'; }
    [[ $(steps out0/lincheck_map.get_or_insert_in_two_steps/bug-1.json) == \
       "$(steps out2/lincheck_map.get_or_insert_in_two_steps/bug-1.json)" ]] || fail "--parallel 0 and 2 saved different traces"
    ;;

  shards_merge_to_the_unsharded_failure)
    # Three shards split the iteration indices; heddle merge keeps the shard
    # whose failure came first: the unsharded run's failure, report and all.
    run "$heddle" test "$buggy" --filter 'lincheck_map.*' --strategy random --seed 11 --json-out whole.json
    expect_exit 1
    for i in 0 1 2; do
      run "$heddle" test "$buggy" --filter 'lincheck_map.*' --strategy random --seed 11 --shard $i/3 --json-out s$i.json
      expect_exit 1
    done
    run "$heddle" merge s2.json s1.json s0.json --json-out merged.json  # not in index order
    expect_exit 1
    first() { json_field "$1" 'json.dumps([s["tests"][0]["iteration"], s["tests"][0]["report"].split("The trace of this run")[0]])'; }
    [[ $(first merged.json) == "$(first whole.json)" ]] || fail "the merged shards reported another failure"
    ;;

  fixed_twins_pass_with_the_given_scenarios)
    run "$heddle" test "$fixed" --strategy random --scenarios 7 --iterations 3 --seed 1 --format json
    expect_exit 0
    printf '%s\n' "$out" >summary.json
    [[ $(json_field summary.json 'len(s["tests"])') == 4 ]] || fail "expected the four fixed examples"
    [[ $(json_field summary.json '{t["lincheck"]["scenarios"] for t in s["tests"]}') == "{7}" ]] || fail "scenarios"
    [[ $(json_field summary.json '{t["lincheck"]["runs"] <= 21 for t in s["tests"]}') == "{True}" ]] || fail "runs"
    [[ $(json_field summary.json '{t["lincheck"]["strategy"] for t in s["tests"]}') == "{'random'}" ]] || fail "strategy"
    ;;

  crash_is_minimized_and_its_trace_replays)
    run "$heddle" test "$crashing" --scenarios 100 --iterations 50 --out out --json-out summary.json
    expect_exit 1
    expect_stdout "lincheck_crash.take_after_take  BUG"
    expect_stdout "crash: SIGSEGV (invalid memory access) in the call take() [T"
    expect_stdout "(test lincheck_crash.take_after_take, scenario"
    expect_stdout "minimized from 6 calls)"
    expect_stdout "replay: heddle replay out/lincheck_crash.take_after_take/bug-1.json"
    # The report: the smallest crashing scenario (put() before, take() in
    # each of two threads), its interleaving up to the crash.
    expect_stderr "heddle lincheck: crash in scenario"
    expect_stderr "(minimized from 6 calls to 3;"
    expect_stderr "init: put("
    expect_stderr "| take() | take() |"
    expect_stderr "(crashed: SIGSEGV (invalid memory access))"
    expect_stderr "Why: SIGSEGV (invalid memory access) in the call take() [T"
    trace=out/lincheck_crash.take_after_take/bug-1.json
    [[ -f $trace ]] || fail "no trace at $trace"
    [[ $(json_field "$trace" 's["arguments"][0]') == lincheck ]] || fail "the trace names no lincheck scenario"
    [[ $(json_field "$trace" 'sum(len([c for c in a.split(":")[1].split(",") if c]) for a in s["arguments"] if a.split(":")[0] in ("init", "thread", "post"))') == 3 ]] ||
      fail "the trace's scenario is not 3 calls"
    [[ $(json_field summary.json 's["tests"][0]["trace_file"]') == "$trace" ]] || fail "trace_file not in the summary"
    # It replays to the same crash, through heddle replay and the binary.
    run "$heddle" replay "$trace"
    expect_exit 1
    expect_stderr "heddle: bug reproduced: lincheck_crash.take_after_take died of SIGSEGV"
    run "$crashing" --gtest_filter=lincheck_crash.take_after_take --heddle_replay="$trace"
    [[ $rc == 139 || $rc == $((128 + 11)) ]] || fail "expected the replay to die of SIGSEGV, got $rc"
    ;;

  crash_run_directly_is_minimized_and_saved)
    # The crash kills a worker process, not the test: the test fails with the report.
    run "$crashing"
    expect_exit 1
    expect_stdout "heddle lincheck: crash in scenario"
    expect_stdout "(minimized from 6 calls to 3;"
    expect_stdout "Why: SIGSEGV (invalid memory access) in the call take() [T"
    expect_stdout "It crashes again with: heddle replay heddle-out/lincheck_crash.take_after_take/bug-1.json"
    [[ -f heddle-out/lincheck_crash.take_after_take/bug-1.json ]] || fail "no trace under heddle-out"
    ;;

  crash_trace_that_does_not_fit_is_one_line_and_exit_2)
    run "$heddle" test "$crashing" --scenarios 100 --iterations 50 --out out
    expect_exit 1
    trace=out/lincheck_crash.take_after_take/bug-1.json
    # A call the scenario does not have.
    python3 - "$trace" bad_call.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["arguments"][4] = "thread:99"
json.dump(t, open(sys.argv[2], "w"))
PY
    run "$heddle" replay bad_call.json
    expect_one_line_error "of test lincheck_crash.take_after_take does not fit the declaration: scenario"
    expect_stderr "has no call 99"
    # Steps cut short: the replay leaves the trace and says so.
    python3 - "$trace" short.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["steps"] = t["steps"][:2]
json.dump(t, open(sys.argv[2], "w"))
PY
    run "$heddle" replay short.json
    expect_exit 2
    expect_stderr "replay diverged: the trace ends after 2 steps"
    ;;

  environment_reaches_a_binary_run_directly)
    HEDDLE_SCENARIOS=5 HEDDLE_ITERATIONS=2 HEDDLE_STRATEGY=pos \
      run "$fixed" --gtest_filter='lincheck_map.*' --heddle_result_file=results.jsonl
    expect_exit 0
    [[ $(json_field results.jsonl 's["lincheck"]["scenarios"]') == 5 ]] || fail "HEDDLE_SCENARIOS not read"
    [[ $(json_field results.jsonl 's["lincheck"]["strategy"]') == pos ]] || fail "HEDDLE_STRATEGY not read"
    [[ $(json_field results.jsonl 's["lincheck"]["runs"]') -le 10 ]] || fail "HEDDLE_ITERATIONS not read"
    ;;

  bad_option_is_one_line_and_exit_2)
    run "$heddle" test "$fixed" --scenarios 0
    expect_one_line_error "bad value '0' for --scenarios: must be at least 1"
    run "$heddle" test "$fixed" --strategy 'pct:x'
    expect_exit 2
    ;;

  *)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
