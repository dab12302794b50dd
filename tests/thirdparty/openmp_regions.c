/* GCC's OpenMP runtime (libgomp) under heddle: a parallel loop with a
 * reduction, a critical section, an explicit barrier, single, tasks with
 * taskwait, OpenMP locks and a second team of another size (the pool's
 * threads are reused and one more is started). libgomp waits on futexes with
 * its own system call instructions, which heddle traps (src/rt/futex_trap.cpp).
 * Every result is checked. */
#include <assert.h>
#include <omp.h>
#include <stdio.h>

static long fib(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(void) {
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2) schedule(dynamic, 16)
  for (int i = 1; i <= 100; ++i) sum += i;
  assert(sum == 5050);

  int arrived = 0, after_barrier = 0, singles = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
  int locked = 0;
#pragma omp parallel num_threads(3)
  {
#pragma omp critical
    ++arrived;
#pragma omp barrier
#pragma omp critical
    if (arrived == 3) ++after_barrier;
#pragma omp single
    ++singles;
    omp_set_lock(&lock);
    ++locked;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  assert(arrived == 3 && after_barrier == 3 && singles == 1 && locked == 3);

  long f = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  f = fib(6);
  assert(f == 8);
  printf("sum %ld arrived %d singles %d locked %d fib %ld\n", sum, arrived, singles, locked, f);
  return 0;
}
