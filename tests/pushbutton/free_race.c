// expect: data_race free by operation
// The main thread frees the job it handed to a worker before joining it: the
// worker's read of the job and the free are not ordered, a data race whichever
// runs first (free counts as a write of the whole block).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
  int input;
  int output;
};

static void* work(void* arg) {
  struct job* j = arg;
  printf("job %d\n", j->input);
  return NULL;
}

int main(void) {
  struct job* j = malloc(sizeof *j);
  j->input = 7;
  pthread_t t;
  pthread_create(&t, NULL, work, j);
  free(j);
  pthread_join(t, NULL);
  return 0;
}
