// expect: assertion counter == 2
/* Each thread asks for its own attributes, as Rust's standard library does
 * for every thread it starts, and checks that its stack has a guard page
 * below it (Rust panics "there is no guard page" otherwise: ripgrep died so
 * under heddle run at iteration 0, before this was fixed). Then a lost
 * update: two threads increment a counter without a lock. heddle must find
 * the assertion on the counter, not fail the guard check. */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

static int counter;

static void check_guard(void) {
  pthread_attr_t attr;
  size_t guard = 0, size = 0;
  void* stack = NULL;
  const int got = pthread_getattr_np(pthread_self(), &attr);
  assert(got == 0);
  pthread_attr_getguardsize(&attr, &guard);
  pthread_attr_getstack(&attr, &stack, &size);
  pthread_attr_destroy(&attr);
  assert(guard > 0 && "there is no guard page");
  assert(stack != NULL && size > 0);
}

static void* bump(void* arg) {
  (void)arg;
  check_guard();
  int seen = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
  __atomic_store_n(&counter, seen + 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, bump, NULL);
  pthread_create(&b, NULL, bump, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
  return 0;
}
