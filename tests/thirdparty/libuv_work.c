/* libuv (libuv1-dev): uv_queue_work runs 4 jobs on libuv's thread pool
 * (UV_THREADPOOL_SIZE=2), each adding to a counter under a uv_mutex; their
 * after-work callbacks run on the loop thread, which uv_run waits for in
 * epoll_wait until a worker writes to the loop's eventfd. Before heddle
 * modelled waits on descriptors (src/rt/posix_descriptors.cpp), epoll_wait
 * blocked the only operation allowed to run: every iteration ended in a hang
 * report. Then libuv's destructor, which joins the pool's threads after main
 * returns, crashed in the C library's pthread_join on heddle's thread handles
 * (src/rt/pthread_threads.cpp, stopped_thread). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

static uv_mutex_t lock;
static long total;
static int done;

static void work(uv_work_t* req) {
  long n = (long)(size_t)req->data;
  uv_mutex_lock(&lock);
  total += n;
  uv_mutex_unlock(&lock);
}

static void after(uv_work_t* req, int status) {
  assert(status == 0);
  ++done;
  free(req);
}

int main(void) {
  setenv("UV_THREADPOOL_SIZE", "2", 1);
  assert(uv_mutex_init(&lock) == 0);
  uv_loop_t* loop = uv_default_loop();
  for (long i = 1; i <= 4; ++i) {
    uv_work_t* req = malloc(sizeof *req);
    req->data = (void*)(size_t)i;
    assert(uv_queue_work(loop, req, work, after) == 0);
  }
  assert(uv_run(loop, UV_RUN_DEFAULT) == 0);
  assert(done == 4);
  assert(total == 10);
  uv_mutex_destroy(&lock);
  puts("ok");
  return 0;
}
