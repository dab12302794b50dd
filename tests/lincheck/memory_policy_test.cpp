// The memory policy under lincheck: which plain accesses of instrumented code
// (plain_memory.cpp) are scheduling points. Under `shared` (the default) an
// access is a point once the 8-byte granule it falls in has been touched by
// two operations of the run; lincheck's operations are the sequential part
// (operation 1: constructor, init and post calls) and one per thread of the
// parallel part. So memory two threads use, or one thread and the constructor,
// gives points; memory only one thread ever touches gives none. `all` makes
// every access a point, `none` no access.
//
// Each check has its twin: shared memory gives points and private memory
// none; a lost update on a plain counter is found through those points, and
// is invisible when the policy makes none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "heddle/lincheck.hpp"
#include "plain_memory.hpp"

namespace {

namespace lc = heddle::lincheck;
using heddle::memory_policy;

// Three ints from calloc (zeroed by libc, not by instrumented code, so no
// operation has touched them when a run starts), each reached only through
// plain_memory::add_to.
class slots {
 public:
  int add_a(int v) { return plain_memory::add_to(a_.get(), v); }
  int add_b(int v) { return plain_memory::add_to(b_.get(), v); }
  // Returns nothing: a lost update here would not be observable, so the
  // check stays linearizable and only counts points.
  void add_common(int v) { (void)plain_memory::add_to(common_.get(), v); }

 private:
  struct freer {
    void operator()(int* p) const { std::free(p); }
  };
  using slot = std::unique_ptr<int, freer>;
  static slot make() { return slot(static_cast<int*>(std::calloc(1, sizeof(int)))); }
  slot a_ = make();
  slot b_ = make();
  slot common_ = make();
};

struct sums {
  int a = 0, b = 0;
  int add_a(int v) { return a += v; }
  int add_b(int v) { return b += v; }
  void add_common(int) {}
  bool operator==(const sums&) const = default;
};

// Two threads of two calls and no sequential part: only the threads touch
// the slots.
lc::spec<slots, sums> two_threads(lc::spec<slots, sums> s) {
  return s.threads(2).ops_per_thread(2).init_ops(0).post_ops(0).scenarios(50).iterations(10).print_report(false);
}

// Slot a is used by one thread only (group "a"), slot b by one thread only.
lc::spec<slots, sums> private_slots() {
  return two_threads(lc::spec<slots, sums>()
                         .op("add_a", &slots::add_a, &sums::add_a, lc::range(1, 3))
                         .group("a")
                         .op("add_b", &slots::add_b, &sums::add_b, lc::range(1, 3))
                         .group("b"));
}

// The common slot: any thread calls add_common.
lc::spec<slots, sums> shared_slot() {
  return two_threads(lc::spec<slots, sums>().op("add_common", &slots::add_common, &sums::add_common, lc::range(1, 3)))
      .detect_races(false);
}

TEST(memory_policy, memory_two_threads_touch_gives_points_under_shared) {
  const lc::result r = lc::check(shared_slot());
  ASSERT_FALSE(r.failure) << r.failure->report;
  EXPECT_GT(r.memory_steps, 0u) << r.steps << " steps in " << r.runs << " runs";
}

TEST(memory_policy, memory_one_thread_touches_gives_no_point_under_shared) {
  const lc::result shared = lc::check(private_slots());
  ASSERT_FALSE(shared.failure) << shared.failure->report;
  EXPECT_EQ(shared.memory_steps, 0u) << shared.steps << " steps in " << shared.runs << " runs";
  // The same accesses are instrumented: under `all` they are points.
  const lc::result all = lc::check(private_slots().memory(memory_policy::all));
  ASSERT_FALSE(all.failure) << all.failure->report;
  EXPECT_GT(all.memory_steps, 0u);
}

class counted {
 public:
  void add() { c_.add(); }
  int get() const { return c_.get(); }

 private:
  plain_memory::counter c_;
};

struct count_model {
  int value = 0;
  void add() { ++value; }
  int get() const { return value; }
  bool operator==(const count_model&) const = default;
};

lc::spec<counted, count_model> counter_spec() {
  return lc::spec<counted, count_model>()
      .op("add", &counted::add, &count_model::add)
      .op("get", &counted::get, &count_model::get)
      .threads(2)
      .ops_per_thread(2)
      .init_ops(0)
      .post_ops(1)
      .scenarios(100)
      .iterations(20)
      .strategy("random")
      .print_report(false);
}

TEST(memory_policy, lost_update_on_a_plain_counter_is_found_through_shared_memory_points) {
  const lc::result r = lc::check(counter_spec().detect_races(false));
  ASSERT_TRUE(r.failure) << r.memory_steps << " memory steps in " << r.runs << " runs";
  EXPECT_EQ(r.failure->kind, "non-linearizable");
  EXPECT_NE(r.failure->message.find("get() ["), std::string::npos) << r.failure->message;
  EXPECT_GT(r.memory_steps, 0u);
}

TEST(memory_policy, lost_update_is_invisible_without_memory_points) {
  const lc::result r = lc::check(counter_spec().detect_races(false).memory(memory_policy::none));
  EXPECT_FALSE(r.failure) << r.failure->report;
  EXPECT_EQ(r.memory_steps, 0u);
  EXPECT_EQ(r.scenarios, 100u);
}

TEST(memory_policy, the_race_detector_reports_the_counter_under_shared) {
  const lc::result r = lc::check(counter_spec());
  ASSERT_TRUE(r.failure);
  ASSERT_TRUE(r.failure->bug);
  EXPECT_EQ(*r.failure->bug, heddle::bug_kind::data_race);
  EXPECT_NE(r.failure->message.find("data race on 4 bytes"), std::string::npos) << r.failure->message;
  EXPECT_NE(r.failure->message.find("plain_memory.cpp"), std::string::npos) << r.failure->message;
}

}  // namespace
