#!/usr/bin/env bash
# errno and the C++ exception state are per thread on both backends of
# `heddle run` (thread_state.cpp), and so are the program's thread_local
# variables: neither backend warns about them (fibers used to share them).
#
#   thread_state_test.sh HEDDLE PROGRAM OUT-DIR
set -u
heddle=$1
program=$2
out=$3
mkdir -p "$out"

fail() {
  echo "FAIL: $*" >&2
  cat "$out"/err >&2
  exit 1
}

for backend in threads fibers; do
  "$heddle" run --backend "$backend" --iterations 500 --strategy random --out "$out" -- "$program" \
    >/dev/null 2>"$out"/err || fail "$backend: the program's per-thread state was not kept (exit $?)"
  grep -q 'no bug found in 500 iteration' "$out"/err || fail "$backend: no summary of 500 iterations"
  warnings=$(grep -c 'has thread_local variables; with --backend fibers' "$out"/err)
  [[ $warnings == 0 ]] || fail "$backend: a warning about thread_local variables, which are per thread"
done
echo "errno, exception state and thread_local variables kept per thread on threads and fibers"
