// expect: data_race (last_finisher)
// Two workers each allocate, fill, check and free blocks of their own with
// every allocator the C and C++ libraries have, sharing none of them. The C
// library hands a block one worker freed to the other: that is no race
// (allocation starts the block's history afresh), and reporting one there is
// the false positive this program guards against. The only race is the last
// one: both record themselves in a plain int.
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include <cassert>
#include <cstring>
#include <new>

#include "heap_reuse.hpp"

static int last_finisher;

static void* worker(void* arg) {
  const int id = static_cast<int>(reinterpret_cast<long>(arg));
  churn(id);
  last_finisher = id;  // the race: both workers write it, nothing orders them
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
