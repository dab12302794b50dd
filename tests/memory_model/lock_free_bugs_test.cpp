// The weak-memory bug catalogue of issue 16, natively with heddle::atomic: a
// seqlock with wrong fences, Peterson's and Dekker's locks with
// acquire/release where seq_cst is needed, a Chase-Lev deque with a missing
// fence, an SPSC ring buffer with a relaxed index and a reference count whose
// decrement is relaxed. For each, the default strategy finds the bug under
// memory_model::rc11 within 10,000 iterations (kind and message asserted), and
// the correct twin passes; dfs verifies it where the state space is small
// enough for a unit test. Under memory_model::sc the buggy versions pass (the
// bugs are reorderings, not interleavings).
//
// Native heddle models atomics, not plain memory, so the payloads here are
// relaxed atomics; a plain payload would behave the same way under the model.
// Retry loops are bounded (a thread that does not get in gives up), which
// keeps dfs finite and changes nothing about what may go wrong.
// tests/pushbutton/ has the same code with std::atomic.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>

#include "heddle/atomic.hpp"
#include "heddle/explore.hpp"
#include "heddle/thread.hpp"

namespace {

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto sc = std::memory_order_seq_cst;

heddle::options quiet(heddle::options o, heddle::memory_model model = heddle::memory_model::rc11) {
  o.print_report = false;
  o.out.clear();
  o.memory_model = model;
  return o;
}
// The default strategy within the budget.
heddle::options find_within_10000() { return quiet({.iterations = 10'000}); }
heddle::options dfs(heddle::memory_model model = heddle::memory_model::rc11) {
  return quiet({.iterations = 1'000'000, .strategy = "dfs"}, model);
}

void expect_assertion(const heddle::result& r, const char* message) {
  ASSERT_TRUE(r.bug) << "not found: " << r.verdict();
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::assertion) << r.report;
  EXPECT_EQ(r.bug->message, message) << r.report;
}
void expect_verified(const heddle::result& r) {
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(r.stats.exhausted) << r.verdict();
}

// A critical section that notices company: the RMW reads the newest count,
// so two threads inside at once always see each other.
void critical_section(heddle::atomic<int>& inside) {
  HEDDLE_ASSERT_MSG(inside.fetch_add(1, rlx) == 0, "two threads are in the critical section at once");
  inside.fetch_sub(1, rlx);
}

// --- seqlock (Boehm, "Can seqlocks get along with programming language memory
// models?", MSPC 2012). The writer makes the count odd, then a release fence
// orders that before the data stores; the reader reads the count (acquire),
// the data, then an acquire fence orders the data before the second read of
// the count. A reader that saw any new datum then sees an odd or newer count
// and retries.
enum class seqlock_mistake {
  none,
  writer_fence_before_the_odd_count,  // the fence orders the data after nothing
  reader_acquire_load_for_the_fence,  // an acquire load does not order earlier loads
};
void seqlock(seqlock_mistake mistake) {
  heddle::atomic<unsigned> seq{0};
  heddle::atomic<int> data1{0}, data2{0};
  heddle::thread writer([&] {
    const unsigned s = seq.load(rlx);
    if (mistake == seqlock_mistake::writer_fence_before_the_odd_count) heddle::atomic_thread_fence(rel);
    seq.store(s + 1, rlx);
    if (mistake != seqlock_mistake::writer_fence_before_the_odd_count) heddle::atomic_thread_fence(rel);
    data1.store(1, rlx);
    data2.store(1, rlx);
    seq.store(s + 2, rel);
  });
  heddle::thread reader([&] {
    const unsigned s0 = seq.load(acq);
    const int d1 = data1.load(rlx);
    const int d2 = data2.load(rlx);
    unsigned s1 = 0;
    if (mistake == seqlock_mistake::reader_acquire_load_for_the_fence) {
      s1 = seq.load(acq);
    } else {
      heddle::atomic_thread_fence(acq);
      s1 = seq.load(rlx);
    }
    if (s0 == s1 && s0 % 2 == 0) HEDDLE_ASSERT_MSG(d1 == d2, "a seqlock reader accepted a torn snapshot");
  });
  writer.join();
  reader.join();
}

TEST(lock_free_bugs, seqlock_with_the_writer_fence_before_the_odd_count) {
  expect_assertion(heddle::explore(find_within_10000(), [] { seqlock(seqlock_mistake::writer_fence_before_the_odd_count); }),
                   "a seqlock reader accepted a torn snapshot");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc),
                                  [] { seqlock(seqlock_mistake::writer_fence_before_the_odd_count); }));
}
TEST(lock_free_bugs, seqlock_whose_reader_uses_an_acquire_load_instead_of_a_fence) {
  expect_assertion(heddle::explore(find_within_10000(), [] { seqlock(seqlock_mistake::reader_acquire_load_for_the_fence); }),
                   "a seqlock reader accepted a torn snapshot");
}
TEST(lock_free_bugs, seqlock_with_boehms_fences_is_verified) {
  expect_verified(heddle::explore(dfs(), [] { seqlock(seqlock_mistake::none); }));
}

// --- Peterson's lock (Peterson, IPL 1981), two threads. With release stores
// and acquire loads, each thread's flag store and its load of the other's
// flag form store buffering: both may read the other's flag as false and
// enter. seq_cst on all of them forbids that (SB's (0, 0)).
struct peterson {
  std::array<heddle::atomic<bool>, 2> flag{};
  heddle::atomic<int> turn{0};
  std::memory_order store, load;

  bool lock(int me, int tries) {
    const int other = 1 - me;
    flag[me].store(true, store);
    turn.store(other, store);
    for (int spins = 0; flag[other].load(load) && turn.load(load) == other; ++spins)
      if (spins == tries) {
        flag[me].store(false, store);
        return false;
      }
    return true;
  }
  void unlock(int me) { flag[me].store(false, store); }
};
void two_threads_lock(auto& lock, int tries) {
  heddle::atomic<int> inside{0};
  auto run = [&](int me) {
    if (!lock.lock(me, tries)) return;
    critical_section(inside);
    lock.unlock(me);
  };
  heddle::thread a([&] { run(0); });
  heddle::thread b([&] { run(1); });
  a.join();
  b.join();
}

TEST(lock_free_bugs, peterson_with_release_acquire_lets_both_in) {
  expect_assertion(heddle::explore(find_within_10000(), [] {
                     peterson lock{.store = rel, .load = acq};
                     two_threads_lock(lock, 2);
                   }),
                   "two threads are in the critical section at once");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc), [] {
    peterson lock{.store = rel, .load = acq};
    two_threads_lock(lock, 1);
  }));
}
TEST(lock_free_bugs, peterson_with_seq_cst_is_verified) {
  expect_verified(heddle::explore(dfs(), [] {
    peterson lock{.store = sc, .load = sc};
    two_threads_lock(lock, 1);
  }));
}

// --- Dekker's lock (Dijkstra, EWD 123), two threads: the same store
// buffering on the flags, with a turn to break ties.
struct dekker {
  std::array<heddle::atomic<bool>, 2> flag{};
  heddle::atomic<int> turn{0};
  std::memory_order store, load;

  bool lock(int me, int tries) {
    const int other = 1 - me;
    flag[me].store(true, store);
    for (int spins = 0; flag[other].load(load); ++spins) {
      if (spins == tries) {
        flag[me].store(false, store);
        return false;
      }
      if (turn.load(load) != me) {
        flag[me].store(false, store);
        for (int waits = 0; turn.load(load) != me; ++waits)
          if (waits == tries) return false;
        flag[me].store(true, store);
      }
    }
    return true;
  }
  void unlock(int me) {
    turn.store(1 - me, store);
    flag[me].store(false, store);
  }
};

TEST(lock_free_bugs, dekker_with_release_acquire_lets_both_in) {
  expect_assertion(heddle::explore(find_within_10000(), [] {
                     dekker lock{.store = rel, .load = acq};
                     two_threads_lock(lock, 2);
                   }),
                   "two threads are in the critical section at once");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc), [] {
    dekker lock{.store = rel, .load = acq};
    two_threads_lock(lock, 1);
  }));
}
TEST(lock_free_bugs, dekker_with_seq_cst_is_verified) {
  expect_verified(heddle::explore(dfs(), [] {
    dekker lock{.store = sc, .load = sc};
    two_threads_lock(lock, 1);
  }));
}

// --- Chase-Lev work-stealing deque, with the memory orders of Lê, Pop, Cohen
// and Zappa Nardelli, "Correct and efficient work-stealing for weak memory
// models", PPoPP 2013 (figure 1). Indices are signed, so take() on an empty
// deque (bottom - 1 < top) needs no wrap-around care; the array never grows
// (the tests push fewer elements than it holds), so its pointer is not loaded.
// The owner's seq_cst fence in take() orders its store of bottom before its
// load of top; without it, owner and thief form store buffering on bottom and
// top, the owner takes the last element without the CAS, and a thief steals
// the same one.
constexpr std::int64_t deque_empty = -1, deque_abort = -2;
struct chase_lev {
  static constexpr std::int64_t capacity = 4;
  heddle::atomic<std::int64_t> top{0}, bottom{0};
  std::array<heddle::atomic<int>, capacity> buffer{};
  bool take_fence = true;
  bool steal_fence = true;

  void push(int x) {
    const std::int64_t b = bottom.load(rlx);
    const std::int64_t t = top.load(acq);
    HEDDLE_ASSERT(b - t < capacity);
    buffer[static_cast<std::size_t>(b % capacity)].store(x, rlx);
    heddle::atomic_thread_fence(rel);
    bottom.store(b + 1, rlx);
  }
  std::int64_t take() {
    const std::int64_t b = bottom.load(rlx) - 1;
    bottom.store(b, rlx);
    if (take_fence) heddle::atomic_thread_fence(sc);
    std::int64_t t = top.load(rlx);
    std::int64_t x = deque_empty;
    if (t <= b) {
      x = buffer[static_cast<std::size_t>(b % capacity)].load(rlx);
      if (t == b) {  // the last element: race the thieves for it
        if (!top.compare_exchange_strong(t, t + 1, sc, rlx)) x = deque_empty;
        bottom.store(b + 1, rlx);
      }
    } else {
      bottom.store(b + 1, rlx);
    }
    return x;
  }
  std::int64_t steal() {
    std::int64_t t = top.load(acq);
    if (steal_fence) heddle::atomic_thread_fence(sc);
    const std::int64_t b = bottom.load(acq);
    if (t >= b) return deque_empty;
    const std::int64_t x = buffer[static_cast<std::size_t>(t % capacity)].load(rlx);
    if (!top.compare_exchange_strong(t, t + 1, sc, rlx)) return deque_abort;
    return x;
  }
};
// The owner pushes 1 and 2, then takes once while a thief steals twice; after
// the join the owner drains the rest. Every element must come out once.
void work_stealing(bool take_fence, bool steal_fence) {
  chase_lev q;
  q.take_fence = take_fence;
  q.steal_fence = steal_fence;
  q.push(1);
  q.push(2);
  std::array<int, 3> times{};  // times[v]: how often element v came out
  auto count = [&](std::int64_t x) {
    if (x > 0) ++times[static_cast<std::size_t>(x)];
  };
  std::array<std::int64_t, 2> stolen{deque_empty, deque_empty};
  heddle::thread thief([&] {
    stolen[0] = q.steal();
    stolen[1] = q.steal();
  });
  count(q.take());
  thief.join();
  count(stolen[0]);
  count(stolen[1]);
  for (std::int64_t x = q.take(); x != deque_empty; x = q.take()) count(x);
  HEDDLE_ASSERT_MSG(times[1] <= 1 && times[2] <= 1, "a deque element was taken twice");
  HEDDLE_ASSERT_MSG(times[1] == 1 && times[2] == 1, "a deque element was lost");
}

TEST(lock_free_bugs, chase_lev_without_the_fence_in_take_hands_an_element_out_twice) {
  expect_assertion(heddle::explore(find_within_10000(), [] { work_stealing(false, true); }),
                   "a deque element was taken twice");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc), [] { work_stealing(false, true); }));
}
// The thief's fence matters too: without it, its second steal may read the
// bottom from before the owner's take although its own seq_cst CAS came after
// the owner's fence (a seq_cst RMW orders itself, not the loads after it).
TEST(lock_free_bugs, chase_lev_without_the_fence_in_steal_hands_an_element_out_twice) {
  expect_assertion(heddle::explore(find_within_10000(), [] { work_stealing(true, false); }),
                   "a deque element was taken twice");
}
TEST(lock_free_bugs, chase_lev_with_the_orders_of_le_et_al_is_verified) {
  expect_verified(heddle::explore(dfs(), [] { work_stealing(true, true); }));
}

// --- A single-producer single-consumer ring buffer (Lamport, TOPLAS 1983, in
// the form of Boost.Lockfree's spsc_queue and folly's ProducerConsumerQueue):
// the producer publishes a slot by storing head with release, the consumer
// frees one by storing tail with release. With head stored relaxed, the
// consumer may see the new head and still read the slot's old value.
struct ring {
  static constexpr std::uint64_t size = 1;
  std::array<heddle::atomic<int>, size> slots{};
  heddle::atomic<std::uint64_t> head{0}, tail{0};
  std::memory_order publish = rel;

  bool push(int v) {
    const std::uint64_t h = head.load(rlx);
    if (h - tail.load(acq) == size) return false;
    slots[h % size].store(v, rlx);
    head.store(h + 1, publish);
    return true;
  }
  bool pop(int& v) {
    const std::uint64_t t = tail.load(rlx);
    if (head.load(acq) == t) return false;
    v = slots[t % size].load(rlx);
    tail.store(t + 1, rel);
    return true;
  }
};
// The producer pushes 1 and 2 into a ring of one slot (a push into a full
// ring gives up), so the second push reuses the slot when the consumer freed
// it in between; the consumer pops twice (a pop from an empty ring gives up).
// What it pops comes in order, and is never a slot's old value. One try per
// call keeps dfs small: retries re-read the indices, and every re-read of a
// relaxed load is offered every older store again.
void producer_consumer(std::memory_order publish) {
  ring q;
  q.publish = publish;
  heddle::thread producer([&] {
    q.push(1);
    q.push(2);
  });
  heddle::thread consumer([&] {
    int expected = 1;
    for (int i = 0; i < 2; ++i) {
      int v = 0;
      if (q.pop(v)) {
        HEDDLE_ASSERT_MSG(v >= expected, "the consumer popped a slot before its value arrived");
        expected = v + 1;
      }
    }
  });
  producer.join();
  consumer.join();
}

TEST(lock_free_bugs, spsc_ring_with_a_relaxed_head_pops_a_stale_slot) {
  expect_assertion(heddle::explore(find_within_10000(), [] { producer_consumer(rlx); }),
                   "the consumer popped a slot before its value arrived");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc), [] { producer_consumer(rlx); }));
}
TEST(lock_free_bugs, spsc_ring_with_a_release_head_is_verified) {
  expect_verified(heddle::explore(dfs(), [] { producer_consumer(rel); }));
}

// --- A reference count (the pattern of Boost's intrusive_ref_counter and
// libstdc++'s shared_ptr): each owner uses the object, then drops its
// reference with fetch_sub(release); the one that drops the last takes an
// acquire fence and frees it. With a relaxed decrement the fence acquires
// nothing: another owner's last write to the object need not happen before
// the free, and lands after it. Native heddle models atomics, not the heap,
// so free() is a poison store over the object's memory, and the check is the
// one a debugging allocator makes when the block is reused: it still holds
// the poison.
constexpr int poison = -1;
struct shared_object {
  heddle::atomic<int> payload{0};
  heddle::atomic<int> refs{2};
};
void drop(shared_object& o, std::memory_order decrement) {
  if (o.refs.fetch_sub(1, decrement) == 1) {
    heddle::atomic_thread_fence(acq);
    o.payload.store(poison, rlx);  // free()
  }
}
void two_owners(std::memory_order decrement) {
  shared_object o;
  heddle::thread a([&] {
    o.payload.store(1, rlx);  // the last use of the object by this owner
    drop(o, decrement);
  });
  heddle::thread b([&] {
    o.payload.store(2, rlx);
    drop(o, decrement);
  });
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(o.payload.load(rlx) == poison, "use after free: an owner wrote to the object after it was freed");
}

TEST(lock_free_bugs, reference_count_with_a_relaxed_decrement_writes_after_free) {
  expect_assertion(heddle::explore(find_within_10000(), [] { two_owners(rlx); }),
                   "use after free: an owner wrote to the object after it was freed");
  expect_verified(heddle::explore(dfs(heddle::memory_model::sc), [] { two_owners(rlx); }));
}
TEST(lock_free_bugs, reference_count_with_a_release_decrement_is_verified) {
  expect_verified(heddle::explore(dfs(), [] { two_owners(rel); }));
}

// --- dpor under rc11: each bug found, each twin verified, counting
// executions (each execution graph once), never more than dfs's schedules.
heddle::options dpor() { return quiet({.iterations = 1'000'000, .strategy = "dpor"}); }
void expect_verified_by_dpor(const std::function<void()>& body) {
  const heddle::result r = heddle::explore(dpor(), body);
  expect_verified(r);
  EXPECT_TRUE(r.stats.schedules_are_executions);
  EXPECT_NE(r.verdict().find(" executions, verified under RC11"), std::string::npos) << r.verdict();
  const heddle::result d = heddle::explore(dfs(), body);
  EXPECT_LE(r.stats.schedules, d.stats.schedules) << "dpor counted more executions than dfs ran schedules";
}

TEST(lock_free_bugs, dpor_finds_the_seqlock_bugs_and_verifies_boehms_fences) {
  expect_assertion(heddle::explore(dpor(), [] { seqlock(seqlock_mistake::writer_fence_before_the_odd_count); }),
                   "a seqlock reader accepted a torn snapshot");
  expect_assertion(heddle::explore(dpor(), [] { seqlock(seqlock_mistake::reader_acquire_load_for_the_fence); }),
                   "a seqlock reader accepted a torn snapshot");
  expect_verified_by_dpor([] { seqlock(seqlock_mistake::none); });
}
TEST(lock_free_bugs, dpor_finds_peterson_and_dekker_with_release_acquire_and_verifies_seq_cst) {
  expect_assertion(heddle::explore(dpor(), [] {
                     peterson lock{.store = rel, .load = acq};
                     two_threads_lock(lock, 1);
                   }),
                   "two threads are in the critical section at once");
  expect_verified_by_dpor([] {
    peterson lock{.store = sc, .load = sc};
    two_threads_lock(lock, 1);
  });
  expect_assertion(heddle::explore(dpor(), [] {
                     dekker lock{.store = rel, .load = acq};
                     two_threads_lock(lock, 1);
                   }),
                   "two threads are in the critical section at once");
  expect_verified_by_dpor([] {
    dekker lock{.store = sc, .load = sc};
    two_threads_lock(lock, 1);
  });
}
TEST(lock_free_bugs, dpor_finds_the_chase_lev_bugs_and_verifies_le_et_al) {
  expect_assertion(heddle::explore(dpor(), [] { work_stealing(false, true); }), "a deque element was taken twice");
  expect_assertion(heddle::explore(dpor(), [] { work_stealing(true, false); }), "a deque element was taken twice");
  expect_verified_by_dpor([] { work_stealing(true, true); });
}
TEST(lock_free_bugs, dpor_finds_the_spsc_and_refcount_bugs_and_verifies_their_twins) {
  expect_assertion(heddle::explore(dpor(), [] { producer_consumer(rlx); }),
                   "the consumer popped a slot before its value arrived");
  expect_verified_by_dpor([] { producer_consumer(rel); });
  expect_assertion(heddle::explore(dpor(), [] { two_owners(rlx); }),
                   "use after free: an owner wrote to the object after it was freed");
  expect_verified_by_dpor([] { two_owners(rel); });
}

}  // namespace
