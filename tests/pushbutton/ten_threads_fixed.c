/* Worker 3 waits until worker 7 has prepared the checksum. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t prepared = PTHREAD_COND_INITIALIZER;
static int parts;
static int checksum_ready;
static int checksum;

static void* worker(void* arg) {
  int id = (int)(intptr_t)arg;
  pthread_mutex_lock(&lock);
  ++parts;
  if (id == 7) {
    checksum = 1234;
    checksum_ready = 1;
    pthread_cond_broadcast(&prepared);
  }
  if (id == 3) {
    while (!checksum_ready) pthread_cond_wait(&prepared, &lock);
    assert(checksum_ready);
    checksum += parts;
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  /* main sets the globals it relies on: the program also runs many times in
   * one process (tests/rt). */
  parts = 0;
  checksum_ready = 0;
  checksum = 0;
  pthread_t t[10];
  for (intptr_t i = 0; i < 10; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 10; ++i) pthread_join(t[i], NULL);
  printf("%d parts, checksum %d\n", parts, checksum);
  return 0;
}
