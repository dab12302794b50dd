// The twin of mmap_reuse.c: the last finisher is recorded under a mutex, so
// nothing races, and pages the kernel passes from one worker to the other
// must not be reported either.
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

static int last_finisher;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
  pthread_mutex_lock(&lock);
  last_finisher = id;
  pthread_mutex_unlock(&lock);
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
