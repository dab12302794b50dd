#!/usr/bin/env bash
# An iteration's child dies with the fork server: `heddle run` on a program
# whose iteration blocks for good, the fork server killed with SIGKILL while
# it waits (as an out-of-memory kill or a user's kill -9 would), and the
# child must be gone within 5 seconds instead of staying behind as an orphan.
#
#   orphan_test.sh HEDDLE PROGRAM
set -u
heddle=$1
program=$2

children() { cat /proc/"$1"/task/*/children 2>/dev/null; }
fail() {
  echo "FAIL: $*" >&2
  [[ -n ${child:-} ]] && kill -KILL "$child" 2>/dev/null
  [[ -n ${cli:-} ]] && kill -KILL "$cli" 2>/dev/null
  exit 1
}

"$heddle" run --iterations 1 --iteration-timeout 600s -- "$program" >/dev/null 2>&1 &
cli=$!
server='' child=''
for _ in $(seq 200); do
  server=$(children "$cli" | awk '{print $1}')
  [[ -n $server ]] && child=$(children "$server" | awk '{print $1}')
  [[ -n $child ]] && break
  sleep 0.05
done
[[ -n $child ]] || fail "no iteration child of the fork server (cli $cli, server '${server}') after 10 s"
grep -q '^State:.*S' /proc/"$child"/status || fail "the iteration child $child is not blocked"

kill -KILL "$server"
for _ in $(seq 100); do
  kill -0 "$child" 2>/dev/null || break
  sleep 0.05
done
if kill -0 "$child" 2>/dev/null && ! grep -q '^State:.*Z' /proc/"$child"/status 2>/dev/null; then
  fail "the iteration child $child outlived the killed fork server $server by 5 s"
fi
wait "$cli" 2>/dev/null
echo "ok: the iteration child $child died with the fork server $server"
