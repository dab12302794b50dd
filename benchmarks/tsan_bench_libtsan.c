// tsan_bench_libtsan: the same instrumented loop as tsan_bench
// (tsan_bench_access.c), linked to gcc's own ThreadSanitizer runtime (libtsan)
// instead of libheddle-rt: the reference for heddle's per-access cost
// (docs/performance.md, "Instrumented accesses"). Prints the median of 7 runs
// of 2 x 10^6 accesses, in ns per access.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void touch_many(int* cells, long n);

static int cells[256];

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  enum { runs = 7 };
  const long rounds = 1000000;
  double samples[runs];
  for (int i = 0; i < runs; ++i) {
    const double start = now_ns();
    touch_many(cells, rounds);
    samples[i] = (now_ns() - start) / (2.0 * (double)rounds);
  }
  qsort(samples, runs, sizeof samples[0], by_value);
  printf("tsan_bench_libtsan: ns per instrumented access, median of %d runs of %ld accesses\n", runs, 2 * rounds);
  printf("  libtsan:                       %6.1f ns\n", samples[runs / 2]);
  return 0;
}
