/* An OpenMP lost update: two threads of a parallel region add to a shared
 * counter with no critical section. Built with heddle's instrumentation, the
 * counter's read and write are scheduling points, and heddle finds the
 * interleaving where both threads read 0 (thirdparty.openmp, known_library.sh). The fixed twin adds
 * under `omp critical`. */
#include <assert.h>
#include <stdio.h>

int main(void) {
  int count = 0;
#pragma omp parallel num_threads(2)
  count = count + 1;
  assert(count == 2);
  printf("count %d\n", count);
  return 0;
}
