// The instrumented half of moodycamel_queue.hpp: moodycamel's header is
// compiled here with -fsanitize=thread, so its atomics call libheddle-rt.
#include "moodycamel_queue.hpp"

#include <array>

#include <concurrentqueue/concurrentqueue.h>

namespace moodycamel_check {

struct queue::impl {
  explicit impl(bool l) : lossy(l) {}
  // Room for a few elements: every run builds a fresh queue.
  moodycamel::ConcurrentQueue<int> q{8};
  std::array<moodycamel::ProducerToken, producers> tokens{moodycamel::ProducerToken(q), moodycamel::ProducerToken(q)};
  bool lossy;
};

queue::queue(bool lossy) : impl_(std::make_unique<impl>(lossy)) {}
queue::~queue() = default;

void queue::enqueue(int producer, int value) {
  impl_->q.enqueue(impl_->tokens[static_cast<std::size_t>(producer)], value);
}

std::optional<int> queue::try_dequeue() {
  if (impl_->lossy) {
    int taken[2];
    if (impl_->q.try_dequeue_bulk(taken, 2) == 0) return std::nullopt;
    return taken[0];
  }
  int value = 0;
  if (!impl_->q.try_dequeue(value)) return std::nullopt;
  return value;
}

std::size_t queue::size_approx() const { return impl_->q.size_approx(); }

}  // namespace moodycamel_check
