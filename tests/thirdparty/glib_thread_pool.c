/* GLib (libglib2.0-dev): a GThreadPool of 2 threads runs 4 jobs that add to a
 * counter under a GMutex, check a GOnce ran its function once, and push their
 * result into a GAsyncQueue; main pops the 4 results, then takes a value from
 * a GThread through a GCond. GLib's locks are atomics in the library, with a
 * futex call (through syscall(), modelled) only when a thread must wait: the
 * race detector reported the counter as a data race at iteration 0, and is
 * off for GLib now (src/rt/known_libraries.cpp). With -DPLANT_LOST_UPDATE a
 * job adds outside the lock: `assertion failed: total == 10`. */
#include <assert.h>
#include <glib.h>
#include <stdio.h>

static GMutex lock;
static long total;
static int once_calls;
static GAsyncQueue* results;

static gpointer init_once(gpointer arg) {
  (void)arg;
  ++once_calls;
  return GINT_TO_POINTER(42);
}

static void job(gpointer data, gpointer user) {
  (void)user;
  static GOnce once = G_ONCE_INIT;
  assert(GPOINTER_TO_INT(g_once(&once, init_once, NULL)) == 42);
  long n = GPOINTER_TO_INT(data);
  g_mutex_lock(&lock);
#ifdef PLANT_LOST_UPDATE
  g_mutex_unlock(&lock);
  long seen = total;
  g_thread_yield();
  total = seen + n;
  g_mutex_lock(&lock);
#else
  total += n;
#endif
  g_mutex_unlock(&lock);
  g_async_queue_push(results, GINT_TO_POINTER(n * 10));
}

static GMutex cond_lock;
static GCond cond;
static int ready, payload;

static gpointer producer(gpointer arg) {
  (void)arg;
  g_mutex_lock(&cond_lock);
  payload = 7;
  ready = 1;
  g_cond_signal(&cond);
  g_mutex_unlock(&cond_lock);
  return NULL;
}

int main(void) {
  results = g_async_queue_new();
  GError* error = NULL;
  GThreadPool* pool = g_thread_pool_new(job, NULL, 2, TRUE, &error);
  assert(pool != NULL && error == NULL);
  for (int i = 1; i <= 4; ++i) g_thread_pool_push(pool, GINT_TO_POINTER(i), NULL);
  long sum = 0;
  for (int i = 0; i < 4; ++i) sum += GPOINTER_TO_INT(g_async_queue_pop(results));
  assert(sum == 100);
  g_thread_pool_free(pool, FALSE, TRUE);
  g_mutex_lock(&lock);
  assert(total == 10);
  g_mutex_unlock(&lock);
  assert(once_calls == 1);

  GThread* t = g_thread_new("producer", producer, NULL);
  g_mutex_lock(&cond_lock);
  while (!ready) g_cond_wait(&cond, &cond_lock);
  assert(payload == 7);
  g_mutex_unlock(&cond_lock);
  g_thread_join(t);
  g_async_queue_unref(results);
  puts("ok");
  return 0;
}
