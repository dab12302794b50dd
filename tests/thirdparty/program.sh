#!/bin/sh
# tests/thirdparty: a multi-threaded program as Debian ships it (not
# instrumented: heddle controls its synchronization only) under `heddle run`,
# its output compared after each iteration (heddle run --check) with what the
# same program printed outside heddle.
#   program.sh HEDDLE ITERATIONS WORKDIR sort|rg|mold|gm [heddle run options...]
set -u
heddle=$1 iterations=$2 workdir=$3 tool=$4
shift 4
here=$(dirname "$0")
mkdir -p "$workdir" && cd "$workdir" || exit 1
case "$tool" in
  # GNU sort sorts a buffer in threads only from 131,072 lines on
  # (SUBTHREAD_LINES_HEURISTIC in coreutils' sort.c): 140,000 numbers, out of
  # order. About 4 iterations/s: run by hand, not by CTest.
  sort) seq 1 140000 | awk '{ print ($1 * 7919) % 140009 }' > unsorted
        set -- "$@" -- "$(command -v sort)" -n --parallel=2 unsorted
        sort -n --parallel=1 unsorted > expected ;;
  # ripgrep (Rust: its std locks and condition variables wait on the futex
  # system call) searches 12 files in 2 threads; the order of its lines
  # depends on the threads, so both sides are sorted.
  rg) mkdir -p tree && i=1
      while [ $i -le 12 ]; do seq $i 3000 > tree/f$i.txt; i=$((i + 1)); done
      set -- "$@" -- "$(command -v rg)" -j2 -c 777 tree
      rg -j1 -c 777 tree | sort > expected ;;
  # mold (the linker; mimalloc and TBB linked in) links six objects into a
  # shared library with two threads; its output is the same in every run.
  # Under heddle it died before main (mimalloc re-entered from heddle's
  # syscall(): docs/pushbutton.md, "What passes through"). On inputs this
  # small its TBB pool rarely starts a second thread: it is here for that.
  mold) i=1
        while [ $i -le 6 ]; do
          printf 'int f%d(int x) { return x * %d; }\nint g%d[100] = {%d};\n' $i $i $i $i > o$i.c
          cc -c -fPIC -O1 o$i.c -o o$i.o || exit 1
          i=$((i + 1))
        done
        mold --no-fork --thread-count=2 -shared -o expected.so o1.o o2.o o3.o o4.o o5.o o6.o || exit 1
        set -- "$@" -- "$(command -v mold)" --no-fork --thread-count=2 -shared -o out.so o1.o o2.o o3.o o4.o o5.o o6.o ;;
  # GraphicsMagick (Debian's gm, OpenMP through libgomp: its futex calls are
  # trapped, docs/pushbutton.md "OpenMP") blurs and resizes a 120x120 image
  # in two OpenMP threads and prints its pixels; before, it hung in its
  # first parallel region.
  gm) export OMP_NUM_THREADS=2
      gm convert -size 120x120 gradient:red-blue -swirl 90 image.png || exit 1
      set -- "$@" -- "$(command -v gm)" convert image.png -blur 0x2 -resize 150% -depth 8 txt:-
      gm convert image.png -blur 0x2 -resize 150% -depth 8 txt:- > expected ;;
  *) echo "program.sh: unknown program $tool" >&2; exit 2 ;;
esac
case "$tool" in
  rg) check="sort | cmp - expected" ;;
  mold) check="cmp out.so expected.so" ;;
  *) check="cmp - expected" ;;
esac
exec "$here/check_run.sh" "$heddle" "$iterations" "$workdir" --check "$check" "$@"
