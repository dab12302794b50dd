/* A program with its own malloc, as mold links mimalloc: the allocator sets
 * itself up at its first call, before main (the C and C++ runtimes allocate
 * first), and asks the kernel for random bytes through syscall() while it
 * does, as mimalloc does for its keys. Re-entered during that set-up, it
 * would hand out a heap it has not finished: it aborts instead, as mimalloc's
 * assertion did. libheddle-rt defines syscall(); before the fix its first
 * call looked the C library's up with dlopen, which allocates, and mold
 * aborted under heddle before main. Two threads then allocate and count under
 * a mutex: the program passes. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Alignas(64) unsigned char arena[64 << 20];
static atomic_size_t used;
static int state; /* 0 not set up, 1 setting up, 2 ready */
static uint64_t key;

static void set_up(void) {
  if (state == 2) return;
  if (state == 1) {
    static const char said[] = "own_malloc: malloc re-entered while it sets itself up\n";
    (void)!write(2, said, sizeof said - 1);
    abort();
  }
  state = 1;
  if (syscall(SYS_getrandom, &key, sizeof key, 0) != (long)sizeof key) key = 1;
  state = 2;
}

static void* take(size_t n, size_t alignment) {
  set_up();
  if (alignment < 16) alignment = 16;
  size_t start, end;
  size_t seen = atomic_load(&used);
  do {
    start = (seen + alignment - 1) & ~(alignment - 1);
    end = start + sizeof(size_t) + n;
    start += sizeof(size_t);
    start = (start + alignment - 1) & ~(alignment - 1);
    end = start + n;
    if (end > sizeof arena) {
      errno = ENOMEM;
      return NULL;
    }
  } while (!atomic_compare_exchange_weak(&used, &seen, end));
  memcpy(arena + start - sizeof(size_t), &n, sizeof n);
  return arena + start;
}

static size_t size_of(void* p) {
  size_t n;
  memcpy(&n, (unsigned char*)p - sizeof n, sizeof n);
  return n;
}

void* malloc(size_t n) { return take(n, 16); }
void free(void* p) { (void)p; }
void* calloc(size_t count, size_t n) { return take(count * n, 16); } /* the arena starts zeroed, never reused */
void* realloc(void* p, size_t n) {
  void* q = take(n, 16);
  if (p != NULL && q != NULL) memcpy(q, p, size_of(p) < n ? size_of(p) : n);
  return q;
}
void* memalign(size_t alignment, size_t n) { return take(n, alignment); }
void* aligned_alloc(size_t alignment, size_t n) { return take(n, alignment); }
int posix_memalign(void** out, size_t alignment, size_t n) {
  *out = take(n, alignment);
  return *out != NULL ? 0 : ENOMEM;
}
void* valloc(size_t n) { return take(n, 4096); }
void* pvalloc(size_t n) { return take((n + 4095) & ~(size_t)4095, 4096); }
size_t malloc_usable_size(void* p) { return p != NULL ? size_of(p) : 0; }

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int count;

static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) {
    int* block = malloc(sizeof *block);
    *block = 1;
    pthread_mutex_lock(&m);
    count += *block;
    pthread_mutex_unlock(&m);
    free(block);
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  work(NULL);
  pthread_join(t, NULL);
  printf("count %d\n", count);
  return count == 6 ? 0 : 1;
}
