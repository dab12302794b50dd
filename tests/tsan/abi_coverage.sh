#!/bin/sh
# Compiles the ABI corpus with every available compiler (gcc, g++, clang,
# clang++), at -O0/-O1/-O2 and with the optional instrumentation variants
# (distinguished volatile accesses, compound read-write), and checks that
# every __tsan_ symbol the objects need is defined by libheddle-rt.so. A new
# compiler that emits a new entry point fails here, naming it.
# usage: abi_coverage.sh <libheddle-rt.so> <corpus directory>
set -eu
rt=$1
corpus=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

defined="$work/defined"
nm -D --defined-only "$rt" | awk '{print $3}' | grep '^__tsan_' | sort -u >"$defined"

launcher=$(command -v ccache || true)  # the corpus is big; its objects cache well
compilers=0
for cc in gcc g++ clang clang++; do
  command -v "$cc" >/dev/null 2>&1 || continue
  compilers=$((compilers + 1))
  case $cc in
    gcc) variants="-O0 -O1 -O2 --param=tsan-distinguish-volatile=1" ;;
    g++) variants="-O0 -O1 -O2" ;;
    clang | clang++) variants="-O0 -O1 -O2 -mllvm=-tsan-distinguish-volatile=1 -mllvm=-tsan-compound-read-before-write=1" ;;
  esac
  case $cc in
    gcc | clang) sources="$corpus/c_atomics.c" ;;
    *) sources="$corpus/cxx_atomics.cpp" ;;
  esac
  for v in $variants; do
    flags=$(echo "$v" | sed 's/^-mllvm=/-mllvm /')
    for src in $sources; do
      std=""
      case $src in *.cpp) std="-std=c++20" ;; esac
      obj="$work/$(basename "$src").$cc.$(echo "$v" | tr -c 'a-zA-Z0-9\n' '_').o"
      # shellcheck disable=SC2086
      $launcher "$cc" $std -fsanitize=thread -O1 $flags -w -c "$src" -o "$obj"
    done
  done
done
[ "$compilers" -gt 0 ] || { echo "abi_coverage: no C or C++ compiler found" >&2; exit 1; }

needed="$work/needed"
nm -u "$work"/*.o | awk '{print $2}' | grep '^__tsan_' | sort -u >"$needed"
missing=$(comm -23 "$needed" "$defined")
if [ -n "$missing" ]; then
  echo "abi_coverage: libheddle-rt does not define these __tsan_ entry points the compilers emit:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "abi_coverage: $(wc -l <"$needed") __tsan_ entry points needed by $compilers compilers, all defined"
