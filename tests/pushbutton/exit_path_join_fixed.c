// The fixed twin of exit_path_join.c: main waits for the job's result.
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
  while (result == 0) pthread_cond_wait(&changed, &lock);
  assert(result == 42);
  pthread_mutex_unlock(&lock);
  return 0;
}
