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

# run_interrupted ARGS...: runs the command in a session of its own and, once
# it has a child and a second has passed, sends SIGINT to that whole session,
# as a terminal's Ctrl-C reaches its foreground process group; fails if the
# command still runs 60 s later. Sets rc, out and err as run does.
run_interrupted() {
  last_command="$* (interrupted by SIGINT)"
  setsid "$@" >"$work/stdout" 2>"$work/stderr" &
  local pid=$!
  for _ in $(seq 200); do pgrep -P $pid >/dev/null && break; sleep 0.05; done
  sleep 1
  kill -INT -- -$pid
  for _ in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then
    kill -KILL -- -$pid
    fail "still running 60 s after one SIGINT"
  fi
  wait $pid
  rc=$?
  out=$(<"$work/stdout")
  err=$(<"$work/stderr")
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
