// The twin of first_touch.c: the check and the claim under one lock.
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static int owner;  // 0: free; never written by main
static int claims;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* claim(void* arg) {
  pthread_mutex_lock(&lock);
  if (owner == 0) {
    owner = (int)(intptr_t)arg;
    ++claims;
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, claim, (void*)1);
  pthread_create(&b, NULL, claim, (void*)2);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("slot owned by %d, claimed %d time(s)\n", owner, claims);
  assert(claims == 1);
  return 0;
}
