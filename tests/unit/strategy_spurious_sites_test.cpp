// Exhaustive strategies under the default options, where spurious wake-ups
// and spurious compare-exchange failures are on: dfs and dpor must finish on a
// compare-exchange retry loop (a Treiber stack with a tagged head) and on
// condition-variable waits (a bounded blocking queue), because each call site
// may fail spuriously once per schedule, not at every pass of its loop. The
// schedule counts printed here are the ones docs/strategies.md shows.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>

#include "heddle/heddle.hpp"

namespace {

// --- a Treiber stack of two nodes whose pops hand their node to the caller --
//
// Operation 1 builds A -> B, then thread 1 pops once while thread 2 pops
// twice and pushes its first node back. Without a tag, thread 1 can read
// head = A and next = B, thread 2 pop A and B and push A, and thread 1's
// compare-exchange (A -> B) still succeed: B is then both in thread 2's hands
// and on the stack (ABA). With the tag, which every successful exchange
// increments, thread 1's exchange fails and retries.
constexpr int no_node = -1;

template <bool tagged>
class treiber_stack {
 public:
  void push(int node) {
    std::uint64_t old = head_.load();
    do {
      next_[node] = index_of(old);
    } while (!head_.compare_exchange_weak(old, pack(tag_of(old) + 1, node)));
  }
  int pop() {
    std::uint64_t old = head_.load();
    int node = no_node;
    do {
      node = index_of(old);
      if (node == no_node) return no_node;
    } while (!head_.compare_exchange_weak(old, pack(tag_of(old) + 1, next_[node])));
    return node;
  }
  // The nodes on the stack, top first (at most `limit`, so a cycle ends).
  std::deque<int> contents(int limit) const {
    std::deque<int> out;
    for (int n = index_of(head_.load()); n != no_node && limit-- > 0; n = next_[n]) out.push_back(n);
    return out;
  }

 private:
  // The head: the tag in the high half (always 0 untagged), the node + 1 in the low half.
  static std::uint64_t pack(std::uint64_t tag, int node) {
    return (tagged ? tag << 32 : 0) | static_cast<std::uint32_t>(node + 1);
  }
  static int index_of(std::uint64_t head) { return static_cast<int>(head & 0xffffffffu) - 1; }
  static std::uint64_t tag_of(std::uint64_t head) { return head >> 32; }

  heddle::atomic<std::uint64_t> head_{pack(0, no_node)};
  std::array<int, 2> next_{no_node, no_node};
};

template <bool tagged>
void treiber_aba() {
  treiber_stack<tagged> s;
  s.push(1);
  s.push(0);  // A = 0 on top of B = 1
  int popped_by_1 = no_node, kept_by_2 = no_node;
  heddle::thread t1([&] { popped_by_1 = s.pop(); });
  heddle::thread t2([&] {
    const int a = s.pop();
    kept_by_2 = s.pop();
    if (a != no_node) s.push(a);
  });
  t1.join();
  t2.join();
  // Every node is in exactly one place: popped by thread 1, kept by thread 2, or on the stack.
  int seen[2] = {0, 0};
  for (int n : s.contents(3)) ++seen[n];
  if (popped_by_1 != no_node) ++seen[popped_by_1];
  if (kept_by_2 != no_node) ++seen[kept_by_2];
  HEDDLE_ASSERT_MSG(seen[0] == 1 && seen[1] == 1, "ABA: a node is in two places at once (or lost)");
}

// --- a bounded blocking queue on one mutex and two condition variables -------
//
// Capacity 1; two producers put one item each, one consumer takes both. The
// waits loop on their condition (`while`), as they must with spurious
// wake-ups; the buggy twin waits with `if`, so a spurious wake-up of the
// consumer takes from an empty queue.
template <bool loop>
class blocking_queue {
 public:
  void put(int v) {
    heddle::unique_lock lock(m_);
    if constexpr (loop) {
      while (items_.size() == capacity) not_full_.wait(lock);
    } else {
      if (items_.size() == capacity) not_full_.wait(lock);
    }
    items_.push_back(v);
    not_empty_.notify_one();
  }
  int take() {
    heddle::unique_lock lock(m_);
    if constexpr (loop) {
      while (items_.empty()) not_empty_.wait(lock);
    } else {
      if (items_.empty()) not_empty_.wait(lock);
    }
    HEDDLE_ASSERT_MSG(!items_.empty(), "take() found the queue empty after its wait");
    const int v = items_.front();
    items_.pop_front();
    not_full_.notify_one();
    return v;
  }

 private:
  static constexpr std::size_t capacity = 1;
  heddle::mutex m_;
  heddle::condition_variable not_full_, not_empty_;
  std::deque<int> items_;
};

// Two producers put one item each and a third thread takes both; or, small
// enough for plain dfs, which does not reduce, one producer puts both and
// operation 1 takes them.
template <bool loop, int producers>
void queue_program() {
  blocking_queue<loop> q;
  int sum = 0;
  auto consume = [&] {
    sum += q.take();
    sum += q.take();
  };
  if constexpr (producers == 2) {
    heddle::thread p1([&] { q.put(1); });
    heddle::thread p2([&] { q.put(2); });
    heddle::thread c(consume);
    p1.join();
    p2.join();
    c.join();
  } else {
    heddle::thread p([&] {
      q.put(1);
      q.put(2);
    });
    consume();
    p.join();
  }
  HEDDLE_ASSERT(sum == 3);
}

heddle::options exhaustive(const char* spec, bool spurious = true) {
  heddle::options o;
  o.iterations = 200'000;
  o.strategy = spec;
  o.spurious_wakeups = o.spurious_cas_failures = spurious;
  o.print_report = false;
  o.out = "";
  return o;
}

void print_count(const char* program, const char* spec, const heddle::result& r, bool spurious) {
  std::printf("[ info ] %s, %s, spurious events %s: %llu schedules in %llu iterations%s\n", program, spec,
              spurious ? "on (default)" : "off", static_cast<unsigned long long>(r.stats.schedules),
              static_cast<unsigned long long>(r.stats.iterations), r.stats.exhausted ? "" : " (not finished)");
}

}  // namespace

TEST(strategy_spurious_sites, dpor_and_dfs_finish_on_a_tagged_treiber_stack_under_default_options) {
  for (const char* spec : {"dpor", "dfs"}) {
    const heddle::result r = heddle::explore(exhaustive(spec), treiber_aba<true>);
    print_count("tagged Treiber stack", spec, r, true);
    EXPECT_FALSE(r.bug) << spec << ": " << r.report;
    EXPECT_TRUE(r.stats.exhausted) << spec << " did not finish in " << r.stats.iterations << " iterations";
    // Spurious failures were explored (more schedules than without them), but once per site.
    const heddle::result plain = heddle::explore(exhaustive(spec, false), treiber_aba<true>);
    print_count("tagged Treiber stack", spec, plain, false);
    EXPECT_TRUE(plain.stats.exhausted) << spec;
    EXPECT_GT(r.stats.schedules, plain.stats.schedules) << spec;
  }
}

TEST(strategy_spurious_sites, dpor_and_dfs_find_the_aba_of_an_untagged_treiber_stack) {
  for (const char* spec : {"dpor", "dfs"}) {
    const heddle::result r = heddle::explore(exhaustive(spec), treiber_aba<false>);
    ASSERT_TRUE(r.bug) << spec;
    EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion) << spec;
    EXPECT_NE(r.bug->message.find("ABA"), std::string::npos) << r.bug->message;
  }
}

TEST(strategy_spurious_sites, dpor_and_dfs_finish_on_a_blocking_queue_under_default_options) {
  struct run {
    const char* spec;
    const char* program;
    void (*body)();
  };
  for (const run& x : {run{"dpor", "bounded blocking queue, 2 producers", queue_program<true, 2>},
                       run{"dpor", "bounded blocking queue, 1 producer", queue_program<true, 1>},
                       run{"dfs", "bounded blocking queue, 1 producer", queue_program<true, 1>}}) {
    const heddle::result r = heddle::explore(exhaustive(x.spec), x.body);
    print_count(x.program, x.spec, r, true);
    EXPECT_FALSE(r.bug) << x.spec << ": " << r.report;
    EXPECT_TRUE(r.stats.exhausted) << x.spec << " did not finish in " << r.stats.iterations << " iterations";
    const heddle::result plain = heddle::explore(exhaustive(x.spec, false), x.body);
    print_count(x.program, x.spec, plain, false);
    EXPECT_TRUE(plain.stats.exhausted) << x.spec;
    EXPECT_GT(r.stats.schedules, plain.stats.schedules) << x.spec;
  }
}

TEST(strategy_spurious_sites, a_spurious_wake_up_still_finds_a_wait_under_if) {
  // Only a spurious wake-up (or a second consumer) makes `if` wrong here; there
  // is one consumer, so dpor must explore the consumer's spurious wake-up.
  const heddle::result r = heddle::explore(exhaustive("dpor"), queue_program<false, 2>);
  ASSERT_TRUE(r.bug);
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion);
  EXPECT_NE(r.bug->message.find("found the queue empty"), std::string::npos) << r.bug->message;
  const heddle::result without = heddle::explore(exhaustive("dpor", false), queue_program<false, 2>);
  EXPECT_FALSE(without.bug) << "without spurious wake-ups a single consumer's `if` is never wrong here";
}
