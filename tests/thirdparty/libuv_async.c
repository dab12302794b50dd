/* libuv: a uv_thread computes a value and wakes the loop with uv_async_send
 * (an atomic in libuv, then a write to the loop's eventfd); the callback, on
 * the loop thread, reads the value. The value was reported as a data race:
 * happens-before now goes through the descriptor, from the worker's write to
 * the loop's epoll_wait (src/rt/posix_descriptors.cpp). libuv's
 * uv_thread/uv_rwlock/uv_barrier/uv_sem/uv_once/uv_cond are pthreads
 * underneath, and run here too. */
#include <assert.h>
#include <stdio.h>
#include <uv.h>

static uv_async_t async;
static long value;
static int calls;
static uv_rwlock_t rw;
static uv_barrier_t barrier;
static uv_sem_t sem;
static uv_once_t once = UV_ONCE_INIT;
static int once_calls;
static long shared;

static void init(void) { ++once_calls; }

static void on_async(uv_async_t* handle) {
  ++calls;
  assert(value == 42);
  uv_close((uv_handle_t*)handle, NULL);
}

static void worker(void* arg) {
  uv_once(&once, init);
  uv_rwlock_wrlock(&rw);
  shared += (long)(size_t)arg;
  uv_rwlock_wrunlock(&rw);
  uv_barrier_wait(&barrier);
  uv_rwlock_rdlock(&rw);
  assert(shared == 3);
  uv_rwlock_rdunlock(&rw);
  uv_sem_post(&sem);
  if (arg == (void*)1) {
    value = 42;
    assert(uv_async_send(&async) == 0);
  }
}

int main(void) {
  uv_loop_t* loop = uv_default_loop();
  assert(uv_async_init(loop, &async, on_async) == 0);
  uv_rwlock_init(&rw);
  uv_barrier_init(&barrier, 2);
  uv_sem_init(&sem, 0);
  uv_thread_t a, b;
  assert(uv_thread_create(&a, worker, (void*)1) == 0);
  assert(uv_thread_create(&b, worker, (void*)2) == 0);
  assert(uv_run(loop, UV_RUN_DEFAULT) == 0);
  uv_sem_wait(&sem);
  uv_sem_wait(&sem);
  uv_thread_join(&a);
  uv_thread_join(&b);
  assert(calls == 1 && once_calls == 1 && shared == 3);
  puts("ok");
  return 0;
}
