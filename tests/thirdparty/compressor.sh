#!/bin/sh
# tests/thirdparty: a multi-threaded compressor as Debian ships it (not
# instrumented: heddle controls its pthread synchronization only) compresses
# one input under `heddle run`; after each iteration --check decompresses what
# it wrote and compares it with the input.
#   compressor.sh HEDDLE ITERATIONS WORKDIR pigz|xz|zstd|lbzip2|pbzip2|plzip|pixz
set -u
heddle=$1 iterations=$2 workdir=$3 tool=$4
here=$(dirname "$0")
mkdir -p "$workdir" && cd "$workdir" || exit 1
# 240 KB of text: several blocks for each tool's threads.
seq 1 40000 > input
case "$tool" in
  # 32 KiB blocks: 8 blocks for 4 compressing threads.
  pigz) program="pigz -p 4 -b 32 -c input" check="pigz -dc | cmp - input" ;;
  # 64 KiB blocks: xz compresses a block per thread.
  xz) program="xz -T2 -0 --block-size=64KiB -c input" check="xz -dc | cmp - input" ;;
  # Jobs of 512 KiB (zstd's smallest) on a copy four times as large.
  zstd) cat input input input input input input input input > input8
        program="zstd -T2 -1 -B524288 -c -q input8" check="zstd -dc -q | cmp - input8" ;;
  # 100k blocks (bzip2's smallest): three blocks for two threads. lbzip2's
  # main thread sleeps in sigsuspend until a worker raises SIGUSR2; pbzip2
  # keeps a thread in sigwait (signals under control: docs/pushbutton.md).
  lbzip2) program="lbzip2 -n2 -1 -c input" check="bzip2 -dc | cmp - input" ;;
  pbzip2) program="pbzip2 -p2 -1 -c input" check="bzip2 -dc | cmp - input" ;;
  # 100 KiB members (lzip's smallest is 4 KiB): three for two worker threads,
  # which plzip's main thread hands out and collects through a queue.
  plzip) program="plzip -n2 -B 100KiB -0 -c input" check="plzip -dc | cmp - input" ;;
  # pixz writes an indexed xz file (not to a pipe): two threads compress
  # blocks of half the xz preset's size, a third writes them in order.
  pixz) rm -f input.xz
        program="pixz -p2 -1 -f 0.5 input input.xz" check="xz -dc input.xz | cmp - input" ;;
  *) echo "compressor.sh: unknown tool $tool" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
exec "$here/check_run.sh" "$heddle" "$iterations" "$workdir" --check "$check" -- $(command -v ${program%% *}) ${program#* }
