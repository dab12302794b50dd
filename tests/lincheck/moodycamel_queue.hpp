// moodycamel::ConcurrentQueue<int> (Debian libconcurrentqueue-dev) behind a
// small interface for lincheck (moodycamel_test.cpp).
//
// moodycamel_queue.cpp, and only it, is compiled with -fsanitize=thread
// against libheddle-rt (heddle_instrument() in CMakeLists.txt): every atomic
// operation of the queue, and every access to memory two operations share, is
// a scheduling point heddle controls. The queue's code is the library's own,
// unchanged.
//
// Producers are explicit (one ProducerToken each): moodycamel keys implicit
// producers by OS thread, and lincheck's threads are fibers on one OS thread,
// so implicit enqueues from two threads would share one single-producer
// sub-queue, which moodycamel does not allow.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

namespace moodycamel_check {

class queue {
 public:
  static constexpr int producers = 2;

  // `lossy`: a deliberately broken wrapper whose try_dequeue takes up to two
  // elements and returns only the first (the second is lost).
  explicit queue(bool lossy = false);
  ~queue();
  queue(const queue&) = delete;
  queue& operator=(const queue&) = delete;

  // Enqueues through producer `producer`'s token (0 <= producer < producers).
  void enqueue(int producer, int value);
  std::optional<int> try_dequeue();
  std::size_t size_approx() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace moodycamel_check
