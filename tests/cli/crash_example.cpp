// A test binary whose bug kills the process: in one interleaving main reads
// the pointer before the publisher sets it and writes through null. The CLI
// tests use it to check that `heddle test` reports a crash bug, names the
// bug-N.trace the crash handler saved, and that `heddle replay` of that trace
// crashes again the same way.
#include <heddle/heddle.hpp>
#include <heddle/test.hpp>

HEDDLE_TEST(crash, write_through_unpublished_pointer) {
  int value = 0;
  int* volatile shared = nullptr;
  heddle::mutex m;
  heddle::thread publisher([&] {
    heddle::this_thread::set_name("publisher");
    m.lock();
    shared = &value;
    m.unlock();
  });
  m.lock();
  int* volatile seen = shared;
  m.unlock();
  *seen = 1;  // null when main ran first: SIGSEGV
  publisher.join();
}

HEDDLE_TEST(crash, never_reached_after_the_crash) {}
