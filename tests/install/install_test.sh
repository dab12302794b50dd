#!/usr/bin/env bash
# install_test.sh BUILD_DIR CONSUMER_SOURCE WORK_DIR CXX
#
# Installs BUILD_DIR into WORK_DIR/prefix, configures and builds the consumer
# project against that prefix only, runs its test binary (a passing
# HEDDLE_TEST and nothing else), and runs it under the installed CLI.
set -euo pipefail
build=$1 consumer=$2 work=$3 cxx=$4

rm -rf "$work" && mkdir -p "$work"
step() { echo "== $*"; }

step "cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
for f in bin/heddle bin/heddle-cc bin/heddle-c++ include/heddle/heddle.hpp include/heddle/test.hpp \
         lib/libheddle-rt.so lib/heddle-tsan/libtsan.so lib/cmake/heddle/HeddleInstrument.cmake; do
  [[ -e $work/prefix/$f ]] || { echo "FAIL: $f was not installed"; exit 1; }
done

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

step "configure the consumer with find_package(heddle REQUIRED)"
cmake -S "$consumer" -B "$work/consumer" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF

step "build the consumer"
cmake --build "$work/consumer"

step "the instrumented consumer and a heddle-cc build link libheddle-rt, not libtsan"
links_rt_only() {
  local needed
  needed=$(readelf -d "$1" | grep NEEDED)
  [[ $needed == *libheddle-rt.so* && $needed != *tsan* ]] || { echo "FAIL: $1 links: $needed"; exit 1; }
  nm -u "$1" | grep -q __tsan_ || { echo "FAIL: $1 is not instrumented"; exit 1; }
}
links_rt_only "$work/consumer/consumer_instrumented"
printf 'int shared;\nint main(void) { return __atomic_fetch_add(&shared, 1, __ATOMIC_SEQ_CST); }\n' >"$work/wrapped.c"
"$work/prefix/bin/heddle-cc" -g "$work/wrapped.c" -o "$work/wrapped"
links_rt_only "$work/wrapped"

step "run the consumer's test binary"
(cd "$work" && HEDDLE_OUT= "$work/consumer/consumer_test")

step "run it under the installed heddle CLI"
output=$(cd "$work" && "$work/prefix/bin/heddle" test "$work/consumer/consumer_test" --iterations 500 --out "$work/out")
echo "$output"
[[ $output == *"consumer.counter_under_a_mutex  passed"* ]] || { echo "FAIL: the installed CLI did not pass the test"; exit 1; }
echo "PASS"
