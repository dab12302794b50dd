// expect: data_race (last_finisher)
// Two workers each map a page, fill it and unmap it, sharing none: the kernel
// gives the page one unmapped to the other at the same address. A new mapping
// starts its memory's history afresh, so that is no race; reporting one is
// the false positive this program guards against. The only race is the last
// one: both record themselves in a plain int.
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

static int last_finisher;

static void churn(int id) {
  for (int round = 0; round < 4; ++round) {
    unsigned char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert(page != MAP_FAILED);
    for (int i = 0; i < 64; ++i) page[i * 64] = (unsigned char)id;
    for (int i = 0; i < 64; ++i) assert(page[i * 64] == (unsigned char)id);
    munmap(page, 4096);
  }
}

static void* worker(void* arg) {
  int id = (int)(long)arg;
  churn(id);
  last_finisher = id;  // the race: both workers write it, nothing orders them
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void*)1L);
  pthread_create(&b, NULL, worker, (void*)2L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(last_finisher == 1 || last_finisher == 2);
  return 0;
}
