# Shared helpers of the shell-driven end-to-end tests (tests/cli, tests/report).
#
# A test script sets case_name and work (its fresh working directory) and then
# sources this file. `run` executes a command and keeps its exit status and
# output; each `expect_*` checks one thing and, when it does not hold, `fail`
# prints what was expected, the command and everything it printed, and exits 1,
# so CTest shows why.

last_command=""
rc=0 out="" err=""

fail() {
  echo "FAIL [$case_name]: $*" >&2
  echo "--- command: $last_command (exit $rc)" >&2
  echo "--- stdout:" >&2 && cat "$work/stdout" >&2 2>/dev/null
  echo "--- stderr:" >&2 && cat "$work/stderr" >&2 2>/dev/null
  exit 1
}

# run ARGS...: runs the command; sets rc, out (stdout) and err (stderr).
run() {
  last_command="$*"
  "$@" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  out=$(<"$work/stdout")
  err=$(<"$work/stderr")
}

# start_background ARGS...: runs the command in the background, its output
# kept as run keeps it; sets pid, and child once the command has started one
# (fails if it starts none within 10 s); then lets it run a second more.
start_background() {
  last_command="$*"
  "$@" >"$work/stdout" 2>"$work/stderr" &
  pid=$! child=""
  for _ in $(seq 200); do child=$(pgrep -P $pid) && break; sleep 0.05; done
  [[ -n $child ]] || fail "$1 started no child process"
  sleep 1
}

# wait_gone PID SECONDS WHAT: fails (killing PID) if PID still runs SECONDS later.
wait_gone() {
  for _ in $(seq $(($2 * 10))); do kill -0 $1 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL $1 2>/dev/null
  fail "$3 still ran $2 s later"
}

# stop_background SIGNAL [-group]: sends SIGNAL to the started command (to its
# whole process group with -group, as a terminal's Ctrl-C reaches its
# foreground group), waits at most 60 s for it and sets rc, out and err.
stop_background() {
  last_command="$last_command (then SIG$1${2:+ to its group})"
  if [[ ${2:-} == -group ]]; then kill -$1 -- -$pid; else kill -$1 $pid; fi
  wait_gone $pid 60 "the command sent SIG$1"
  wait $pid
  rc=$?
  out=$(<"$work/stdout")
  err=$(<"$work/stderr")
}

# run_interrupted ARGS...: runs the command in a session of its own and
# interrupts the whole session once it runs, as a terminal's Ctrl-C does.
run_interrupted() {
  start_background setsid "$@"
  stop_background INT -group
}

expect_exit() { [[ $rc == "$1" ]] || fail "expected exit status $1, got $rc"; }
expect_stdout() { [[ $out == *"$1"* ]] || fail "stdout does not contain '$1'"; }
expect_stderr() { [[ $err == *"$1"* ]] || fail "stderr does not contain '$1'"; }
expect_file() { [[ -f $1 ]] || fail "file '$1' was not written"; }
expect_nonempty_file() { [[ -s $1 ]] || fail "file '$1' was not written or is empty"; }

# A usage or input error: exit 2, nothing on stdout, exactly one line on
# stderr that starts with "heddle: " and contains $1.
expect_one_line_error() {
  expect_exit 2
  [[ -z $out ]] || fail "expected nothing on stdout"
  [[ $(printf '%s\n' "$err" | wc -l) == 1 ]] || fail "expected exactly one line on stderr"
  [[ $err == "heddle: "* ]] || fail "expected the line to start with 'heddle: '"
  expect_stderr "$1"
}
