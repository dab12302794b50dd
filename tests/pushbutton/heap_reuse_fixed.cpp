// The twin of heap_reuse.cpp: the last finisher is recorded under a mutex, so
// nothing races, and heap blocks passed from one worker to the other by the
// C library must not be reported either.
#include <pthread.h>

#include <cassert>

#include "heap_reuse.hpp"

static int last_finisher;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  const int id = static_cast<int>(reinterpret_cast<long>(arg));
  churn(id);
  pthread_mutex_lock(&lock);
  last_finisher = id;
  pthread_mutex_unlock(&lock);
  return nullptr;
}

int main() {
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, reinterpret_cast<void*>(1L));
  pthread_create(&b, nullptr, worker, reinterpret_cast<void*>(2L));
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  assert(last_finisher == 1 || last_finisher == 2);
  return 0;
}
