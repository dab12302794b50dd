// expect: assertion assertion failed: result == 42
// A library's thread pool, stopped as libuv stops its own: a destructor that
// runs after main returns tells the worker to stop and joins it. main hands
// the worker a job and reads its result without waiting for it, so it may
// read 0. Before the fix, the destructor's pthread_join passed heddle's
// handle of the (stopped) worker to the C library, which crashed on it: this
// program and its correct twin ended in "crash: SIGSEGV ... in the exit path
// after main returned" (src/rt/pthread_threads.cpp, stopped_thread).
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int job, result, stop;
static pthread_t worker_thread;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!job && !stop) pthread_cond_wait(&changed, &lock);
    if (stop) break;
    job = 0;
    result = 42;
    pthread_cond_broadcast(&changed);
  }
  pthread_mutex_unlock(&lock);
  return arg;
}

__attribute__((destructor)) static void stop_pool(void) {
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  assert(pthread_join(worker_thread, NULL) == 0);
}

int main(void) {
  pthread_create(&worker_thread, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  job = 1;
  pthread_cond_broadcast(&changed);
  assert(result == 42);
  pthread_mutex_unlock(&lock);
  return 0;
}
