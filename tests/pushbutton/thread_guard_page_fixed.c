/* thread_guard_page.c with the increment made atomic: every thread still
 * finds a guard page below its stack, and the run passes. */
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
  __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
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
