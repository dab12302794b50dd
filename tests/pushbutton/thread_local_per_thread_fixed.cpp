// The twin of thread_local_per_thread.cpp: `total` counted with one atomic
// read-modify-write.
#include <pthread.h>
#include <sched.h>

#include <cassert>
#include <string>

static thread_local int steps;
static thread_local int base = 40;
static thread_local std::string name;
static int total;

static void* work(void* arg) {
  const char* const mine = static_cast<const char*>(arg);
  assert(steps == 0 && base == 40 && name.empty());  // a new thread's
  name = mine;
  for (int i = 1; i <= 3; ++i) {
    ++steps;
    ++base;
    sched_yield();
    assert(steps == i && base == 40 + i && name == mine);
  }
  __atomic_fetch_add(&total, 1, __ATOMIC_SEQ_CST);
  return nullptr;
}

int main() {
  base = 7;  // main's own
  pthread_t a, b;
  pthread_create(&a, nullptr, work, const_cast<char*>("first thread, with a name too long for a short string"));
  pthread_create(&b, nullptr, work, const_cast<char*>("second thread, with a name too long for a short string"));
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  assert(steps == 0 && base == 7 && name.empty());
  assert(total == 2);
  return 0;
}
