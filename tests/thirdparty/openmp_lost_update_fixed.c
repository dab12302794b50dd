/* The twin of openmp_lost_update.c: the counter is added to under
 * `omp critical`, which libgomp orders with atomics of its own (not
 * instrumented: the race detector is off for the run, and says so). */
#include <assert.h>
#include <stdio.h>

int main(void) {
  int count = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp critical
    count = count + 1;
  }
  assert(count == 2);
  printf("count %d\n", count);
  return 0;
}
