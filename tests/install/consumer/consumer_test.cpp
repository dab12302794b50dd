// A HEDDLE_TEST built against an installed heddle: two threads increment a
// counter under a heddle::mutex, so every interleaving ends at 2.
#include <heddle/heddle.hpp>
#include <heddle/test.hpp>

HEDDLE_TEST(consumer, counter_under_a_mutex) {
  heddle::mutex m;
  int counter = 0;
  const auto increment = [&] {
    m.lock();
    ++counter;
    m.unlock();
  };
  heddle::thread a(increment);
  heddle::thread b(increment);
  a.join();
  b.join();
  HEDDLE_ASSERT(counter == 2);
}
