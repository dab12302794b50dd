// The fixed twin of thread_local_flush.cpp: the destructor adds its count in
// one fetch_add. Also checks glibc's order at thread exit: a thread's
// thread_local destructors run first, the last constructed first, then its
// pthread key destructors, in rounds while a destructor sets a value again
// (up to PTHREAD_DESTRUCTOR_ITERATIONS); all of it before pthread_join returns.
// Each worker uses thread_local variables of its own (worker<N>), so that the
// program meant the same on --backend fibers when its threads shared them.
#include <pthread.h>

#include <atomic>
#include <cassert>
#include <thread>

namespace {

constexpr int workers = 2;
constexpr int per_worker = 3;
std::atomic<int> flushed{0};
std::atomic<int> key_destructor_runs{0};
template <int n>
thread_local int destroyed = 0;  // trivially destructible: usable after the tallies are gone

template <int n>
struct tally {
  int count = 0;
  ~tally() {
    assert(destroyed<n> == 1);  // constructed after `first`, so destroyed before it
    destroyed<n> = 2;
    flushed.fetch_add(count);
  }
};

template <int n>
struct first_constructed {
  ~first_constructed() {
    assert(destroyed<n> == 2);
    destroyed<n> = 3;
  }
};

pthread_key_t keys[workers];

template <int n>
void key_destructor(void* value) {
  assert(destroyed<n> == 3);  // every thread_local destructor ran before
  key_destructor_runs.fetch_add(1);
  // Set again once: glibc runs a second round for it.
  if (value == &key_destructor_runs) pthread_setspecific(keys[n], &flushed);
}

template <int n>
void work() {
  thread_local first_constructed<n> first;
  destroyed<n> = 1;
  pthread_setspecific(keys[n], &key_destructor_runs);
  thread_local tally<n> mine;
  for (int i = 0; i < per_worker; ++i) ++mine.count;
}

}  // namespace

int main() {
  pthread_key_create(&keys[0], key_destructor<0>);
  pthread_key_create(&keys[1], key_destructor<1>);
  std::thread a(work<0>), b(work<1>);
  a.join();
  b.join();
  assert(flushed.load() == workers * per_worker);
  assert(key_destructor_runs.load() == 2 * workers);
  return 0;
}
