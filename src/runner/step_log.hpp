// The shared-memory step stream: the decisions of the iteration in flight,
// readable by another process at any moment, including after the process
// that writes them died of a signal or was killed.
//
// Contract: the writer (one process, one thread) calls begin() at the start of
// an iteration and append() at every decision; a step is stored before the
// count that publishes it (release), so a reader that loads the count
// (acquire) sees that many complete steps. No syscall, no allocation: a step
// costs two stores. The log lives in memory the caller maps shared before
// fork() (shared_region); anything that can map it can read it: the runner's
// worker parent, or a fork server's parent. A crash_note next to it says how
// the writer died when its own signal handler could tell.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/strategy.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// Anonymous shared memory that survives fork(): parent and children see the
// same bytes. Pages are touched only when used.
class shared_region {
 public:
  explicit shared_region(std::size_t bytes);
  ~shared_region();
  shared_region(const shared_region&) = delete;
  shared_region& operator=(const shared_region&) = delete;
  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// The wait status of child process `child`, which is killed (SIGKILL) if it
// has not ended by `deadline`.
int wait_for_child(int child, std::chrono::steady_clock::time_point deadline);

// What a crash handler learned about the crash (crash_guard fills it).
struct crash_note {
  std::atomic<int> signal{0};  // non-zero once written
  bug_kind kind = bug_kind::crash;
  std::uint32_t operation = 0;
  char message[512] = {};
  char operation_name[128] = {};
};

class step_log {
 public:
  // Bytes a log of `capacity` steps needs, and the log placed at `memory`.
  static std::size_t bytes_for(std::uint64_t capacity);
  step_log(void* memory, std::uint64_t capacity);

  void begin() noexcept { header_->count.store(0, std::memory_order_release); }
  void append(const trace_step& s) noexcept {
    const std::uint64_t n = header_->count.load(std::memory_order_relaxed);
    if (n >= capacity_) return;  // past max_steps the engine ends the iteration anyway
    steps_[n] = s;
    header_->count.store(n + 1, std::memory_order_release);
  }
  std::uint64_t size() const noexcept { return header_->count.load(std::memory_order_acquire); }
  // The published steps, copied out.
  std::vector<trace_step> snapshot() const;

 private:
  struct header {
    std::atomic<std::uint64_t> count{0};
  };
  header* header_;
  trace_step* steps_;
  std::uint64_t capacity_;
};

// Wraps a strategy and appends every decision it takes to a step_log, as the
// engine records it in the trace (the chosen operation's pending point and
// object; for a data choice, the choice's point and object and the value).
class streaming_strategy final : public strategy {
 public:
  streaming_strategy(strategy& inner, step_log& log) : inner_(inner), log_(log) {}
  void begin_iteration(std::uint64_t index, std::uint64_t seed) override {
    log_.begin();
    inner_.begin_iteration(index, seed);
  }
  std::size_t next_operation(const decision_context& ctx) override {
    const std::size_t pick = inner_.next_operation(ctx);
    if (pick < ctx.enabled.size()) {
      const pending_operation& p = ctx.enabled[pick];
      log_.append({step_kind::schedule, p.point, p.object, p.id});
    }
    return pick;
  }
  std::uint64_t next_value(const decision_context& ctx, const choice& c) override {
    const std::uint64_t value = inner_.next_value(ctx, c);
    if (value < c.bound) log_.append({c.kind, c.point, c.object, value});
    return value;
  }
  void end_iteration(const iteration_summary& s) override { inner_.end_iteration(s); }
  std::string describe() const override { return inner_.describe(); }
  bool is_fair() const override { return inner_.is_fair(); }
  std::uint64_t learning_window() const override { return inner_.learning_window(); }
  bool exhausted() const override { return inner_.exhausted(); }
  std::string stop_reason() const override { return inner_.stop_reason(); }
  std::uint64_t schedules_explored() const override { return inner_.schedules_explored(); }
  std::string search_error() const override { return inner_.search_error(); }

 private:
  strategy& inner_;
  step_log& log_;
};

}  // namespace heddle::detail
