// spdlog's asynchronous logger (Debian libspdlog-dev, used header-only): two
// threads log through one async logger whose thread pool (one worker, a
// bounded queue of 2 messages that blocks when full) hands each message to a
// sink written here. Every message arrives exactly once, each thread's in the
// order it logged them, and a flush is seen after the messages before it.
#include <spdlog/async.h>
#include <spdlog/sinks/base_sink.h>

#include <cassert>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int threads = 2, per_thread = 3;

// Records each message's payload; the base sink locks the mutex around it.
class recording_sink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> seen;
  int flushes = 0;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    seen.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override { ++flushes; }
};

}  // namespace

int main() {
  auto sink = std::make_shared<recording_sink>();
  {
    auto pool = std::make_shared<spdlog::details::thread_pool>(2, 1);
    auto logger = std::make_shared<spdlog::async_logger>("async", sink, pool, spdlog::async_overflow_policy::block);
    std::vector<std::thread> loggers;
    for (int t = 0; t < threads; ++t)
      loggers.emplace_back([t, &logger] {
        for (int i = 0; i < per_thread; ++i) logger->info("{} {}", t, i);
      });
    for (std::thread& t : loggers) t.join();
    logger->flush();
    // The pool's destructor posts a terminate message and joins its worker.
  }
  assert(sink->seen.size() == threads * per_thread);
  int next[threads] = {};
  for (const std::string& s : sink->seen) {
    int t = -1, i = -1;
    const int fields = std::sscanf(s.c_str(), "%d %d", &t, &i);
    assert(fields == 2 && t >= 0 && t < threads);
    assert(i == next[t]);
    ++next[t];
  }
  assert(sink->flushes >= 1);
  std::printf("%zu messages\n", sink->seen.size());
  return 0;
}
