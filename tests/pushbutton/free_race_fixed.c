// The twin of free_race.c: the job is freed after the worker is joined.
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
  pthread_join(t, NULL);
  free(j);
  return 0;
}
