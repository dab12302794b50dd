// expect: data_race bit_race.cpp:20 in set_flag (in std::
/* Two threads set different elements of one std::vector<bool>: the bits
 * share a word, so each write is a read-modify-write of the same memory, a
 * data race. The write itself is code of <bits/stl_bvector.h> inlined into
 * set_flag; the report must place it on the program's line (bit_race.cpp:20
 * in set_flag) with the library frame under it, not at stl_bvector.h. And the
 * threads are named after their start routine, never after heddle's own code. */
#include <pthread.h>

#include <vector>

static std::vector<bool> flags(2);

struct job {
  int index;
};

// Not inlined, so the frame the report names is this function.
__attribute__((noinline)) static void set_flag(int i) {
  flags[static_cast<std::size_t>(i)] = true;
}

static void* worker(void* arg) {
  set_flag(static_cast<job*>(arg)->index);
  return nullptr;
}

int main() {
  job first{0}, second{1};
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, &first);
  pthread_create(&b, nullptr, worker, &second);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  return flags[0] && flags[1] ? 0 : 1;
}
