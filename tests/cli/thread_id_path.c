/* A program whose schedule depends on its thread ids, which differ in every
 * run: the worker takes a lock as many times as its id modulo 11 (a new
 * process's ids follow the last one's by a few, so every run differs). Nothing here is
 * a bug; `heddle run --check-determinism` must notice that an iteration run
 * again on its own schedule takes other steps, and name gettid as the cause. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void* worker(void* arg) {
  (void)arg;
  for (pid_t round = gettid() % 11; round > 0; --round) {
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  ++total;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  ++total;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf("total %d\n", total);
  return 0;
}
