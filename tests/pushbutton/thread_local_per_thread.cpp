// expect: assertion total == 2
// Each thread has its own thread_local variables, on both backends: a counter
// set up with zeros, one with an initial value, and a std::string that each
// thread constructs when it first uses it and destroys when it exits (what
// Boost.Asio's per-thread call stack and handler memory rely on). On
// --backend fibers all threads run on one OS thread; they shared one copy,
// and each thread saw the others' steps. The bug is elsewhere: a lost update
// on `total`.
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
  const int seen = __atomic_load_n(&total, __ATOMIC_SEQ_CST);
  __atomic_store_n(&total, seen + 1, __ATOMIC_SEQ_CST);
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
