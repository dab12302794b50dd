#!/bin/sh
# heddle-cc and heddle-c++ build working programs and shared libraries that
# link libheddle-rt and not libtsan, with gcc and with clang; outside a heddle
# run the program behaves as without instrumentation (every hook does the
# plain operation). Bad setup is one clear line and exit code 2.
# usage: wrappers_test.sh <build bin directory> <libheddle-rt.so>
set -eu
bin=$1
rt=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$work/lib.c" <<'SRC'
#include <stdatomic.h>
_Atomic long hits;
long add_hit(void) { return atomic_fetch_add(&hits, 1) + 1; }
SRC
cat >"$work/main.c" <<'SRC'
#include <pthread.h>
#include <stdio.h>
long add_hit(void);
static int plain;
static void* work(void* arg) { (void)arg; for (int i = 0; i < 1000; ++i) add_hit(); plain = 1; return NULL; }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  pthread_join(t, NULL);
  printf("%ld %d\n", add_hit(), plain);
  return 0;
}
SRC
cat >"$work/main.cpp" <<'SRC'
#include <atomic>
#include <cstdio>
#include <thread>
std::atomic<int> n{0};
int main() {
  std::thread t([] { for (int i = 0; i < 1000; ++i) n.fetch_add(1, std::memory_order_relaxed); });
  t.join();
  std::printf("%d\n", n.load());
}
SRC

compilers=0
for pair in "gcc g++" "clang clang++"; do
  cc=${pair% *}
  cxx=${pair#* }
  command -v "$cc" >/dev/null 2>&1 && command -v "$cxx" >/dev/null 2>&1 || continue
  compilers=$((compilers + 1))
  d="$work/$cc"
  mkdir -p "$d"
  HEDDLE_CC=$cc "$bin/heddle-cc" -g -O1 -fPIC -shared "$work/lib.c" -o "$d/libhits.so"
  HEDDLE_CC=$cc "$bin/heddle-cc" -g -O1 -c "$work/main.c" -o "$d/main.o"
  HEDDLE_CC=$cc "$bin/heddle-cc" "$d/main.o" -L"$d" -Wl,-rpath,"$d" -lhits -o "$d/main"
  HEDDLE_CXX=$cxx "$bin/heddle-c++" -g -O1 -std=c++20 "$work/main.cpp" -o "$d/main_cpp"
  for f in "$d/libhits.so" "$d/main" "$d/main_cpp"; do
    needed=$(readelf -d "$f" | grep NEEDED || true)
    echo "$needed" | grep -q 'libheddle-rt.so' || fail "$cc: $f does not link libheddle-rt: $needed"
    if echo "$needed" | grep -q 'tsan'; then fail "$cc: $f links libtsan: $needed"; fi
    nm "$f" | grep -q ' T __tsan_' && fail "$cc: $f defines __tsan_ entry points itself (a static tsan runtime)"
    nm -u "$f" | grep -q '__tsan_' || fail "$cc: $f is not instrumented (no __tsan_ calls)"
  done
  [ "$("$d/main")" = "1001 1" ] || fail "$cc: the instrumented C program printed '$("$d/main")', expected '1001 1'"
  [ "$("$d/main_cpp")" = "1000" ] || fail "$cc: the instrumented C++ program printed '$("$d/main_cpp")', expected '1000'"
done
[ "$compilers" -gt 0 ] || fail "no compiler pair found"

# Bad setup: a runtime that does not exist.
if out=$(HEDDLE_RT=/nonexistent/libheddle-rt.so "$bin/heddle-cc" "$work/main.c" -o "$work/x" 2>&1); then
  fail "heddle-cc accepted a missing HEDDLE_RT"
else
  code=$?
  [ "$code" -eq 2 ] || fail "heddle-cc exited $code for a missing HEDDLE_RT, expected 2"
  [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "heddle-cc said more than one line: $out"
  echo "$out" | grep -q "cannot find libheddle-rt.so" || fail "unclear message: $out"
fi
echo "PASS: heddle-cc and heddle-c++ with $compilers compiler pair(s)"
