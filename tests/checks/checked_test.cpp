// heddle::checked<C> (heddle/checked.hpp, docs/checks.md): two calls on one
// container that overlap in time from different operations, one a write, are a
// thread_safety_violation whose message names both calls and lines. For each
// container kind, a write/write and a read/write overlap between two threads is
// found by the default strategy within 10,000 iterations with the exact message,
// its fixed twin (a mutex around the calls) passes 2,000 iterations, and the
// found bug replays 100 times out of 100. Reads never conflict with reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "heddle/checked.hpp"
#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "heddle/trace.hpp"

namespace {

using heddle::checked;

heddle::options quiet(heddle::options o) {
  o.print_report = false;
  o.out.clear();
  return o;
}

// A call made by a scenario: its method, kind and line, learnt by making it
// once outside control (where checked<C> is the std container).
struct call_site {
  std::string method;
  std::string kind;
  int line = 0;
};

using vector_t = checked<std::vector<int>>;
using deque_t = checked<std::deque<int>>;
using string_t = checked<std::string>;
using map_t = checked<std::map<int, int>>;
using unordered_map_t = checked<std::unordered_map<std::string, int>>;

// Each call and its __LINE__ on one line.
call_site vector_push_back(vector_t& v) { v.push_back(1); return {"push_back", "write", __LINE__}; }
call_site vector_resize(vector_t& v) { v.resize(3); return {"resize", "write", __LINE__}; }
call_site vector_size(vector_t& v) { (void)v.size(); return {"size", "read", __LINE__}; }
call_site deque_push_front(deque_t& d) { d.push_front(1); return {"push_front", "write", __LINE__}; }
call_site deque_pop_back(deque_t& d) { d.pop_back(); return {"pop_back", "write", __LINE__}; }
call_site deque_back(deque_t& d) { (void)d.back(); return {"back", "read", __LINE__}; }
call_site string_plus(string_t& s) { s += "x"; return {"operator+=", "write", __LINE__}; }
call_site string_append(string_t& s) { s.append("y"); return {"append", "write", __LINE__}; }
call_site string_find(string_t& s) { (void)s.find('a'); return {"find", "read", __LINE__}; }
call_site map_index(map_t& m) { m[1] = 10; return {"operator[]", "write", __LINE__}; }
call_site map_erase(map_t& m) { m.erase(2); return {"erase", "write", __LINE__}; }
call_site map_count(map_t& m) { (void)m.count(2); return {"count", "read", __LINE__}; }
call_site unordered_index_a(unordered_map_t& m) { m["a"] = 1; return {"operator[]", "write", __LINE__}; }
call_site unordered_index_b(unordered_map_t& m) { m["b"] = 2; return {"operator[]", "write", __LINE__}; }
call_site unordered_find(unordered_map_t& m) { (void)m.find("b"); return {"find", "read", __LINE__}; }

std::string text_of(const std::string& type, const call_site& first, const std::string& first_op,
                    const call_site& second, const std::string& second_op) {
  return "thread-safety violation: " + first.method + " (" + first.kind + ") on checked " + type + " #N by " +
         first_op + " at checked_test.cpp:" + std::to_string(first.line) + " overlaps " + second.method + " (" +
         second.kind + ") by " + second_op + " at checked_test.cpp:" + std::to_string(second.line);
}

// One overlap between a worker thread and the test's main operation.
struct scenario {
  std::string name;
  std::function<void()> buggy;
  std::function<void()> fixed;  // the same calls under one mutex
  std::string type;
  call_site worker_call, main_call;
  // The message, whichever call came second ("#N" for the object's id).
  std::string message_worker_second() const {
    return text_of(type, worker_call, "operation 2 (worker)", main_call, "operation 1 (main)");
  }
  std::string message_main_second() const {
    return text_of(type, main_call, "operation 1 (main)", worker_call, "operation 2 (worker)");
  }
};
void PrintTo(const scenario& s, std::ostream* os) { *os << s.name; }

template <class C, class Init>
scenario overlap(std::string name, Init init, call_site (*worker)(C&), call_site (*on_main)(C&)) {
  scenario s;
  s.name = std::move(name);
  s.type = heddle::detail::checked_traits<typename C::container_type>::name;
  C scratch = init();
  s.worker_call = worker(scratch);
  s.main_call = on_main(scratch);
  s.buggy = [=] {
    C c = init();
    heddle::thread t([&] {
      heddle::this_thread::set_name("worker");
      worker(c);
    });
    on_main(c);
    t.join();
  };
  s.fixed = [=] {
    C c = init();
    heddle::mutex m;
    heddle::thread t([&] {
      heddle::this_thread::set_name("worker");
      std::lock_guard lock(m);
      worker(c);
    });
    {
      std::lock_guard lock(m);
      on_main(c);
    }
    t.join();
  };
  return s;
}

std::vector<scenario> all_scenarios() {
  auto vec = [] { return vector_t{1, 2, 3}; };
  auto deq = [] { return deque_t{1, 2, 3}; };
  auto str = [] { return string_t("abc"); };
  auto map = [] { return map_t{{1, 1}, {2, 2}}; };
  auto umap = [] { return unordered_map_t{{"a", 0}, {"b", 0}}; };
  return {
      overlap<vector_t>("vector_write_write", vec, vector_push_back, vector_resize),
      overlap<vector_t>("vector_read_write", vec, vector_push_back, vector_size),
      overlap<deque_t>("deque_write_write", deq, deque_push_front, deque_pop_back),
      overlap<deque_t>("deque_read_write", deq, deque_push_front, deque_back),
      overlap<string_t>("string_write_write", str, string_plus, string_append),
      overlap<string_t>("string_read_write", str, string_plus, string_find),
      overlap<map_t>("map_write_write", map, map_index, map_erase),
      overlap<map_t>("map_read_write", map, map_index, map_count),
      overlap<unordered_map_t>("unordered_map_write_write", umap, unordered_index_a, unordered_index_b),
      overlap<unordered_map_t>("unordered_map_read_write", umap, unordered_index_a, unordered_find),
  };
}

std::string without_object_id(const std::string& message) {
  return std::regex_replace(message, std::regex("#[0-9]+"), "#N");
}

// The first bug of each scenario under the default strategy, found once.
const heddle::result& first_bug(const scenario& s) {
  static std::map<std::string, heddle::result> found;
  auto it = found.find(s.name);
  if (it == found.end()) it = found.emplace(s.name, heddle::explore(quiet({.iterations = 10'000}), s.buggy)).first;
  return it->second;
}

class overlapping_calls : public testing::TestWithParam<scenario> {};

TEST_P(overlapping_calls, are_found_by_the_default_strategy_within_10000_iterations_naming_both_calls) {
  const scenario& s = GetParam();
  const heddle::result& r = first_bug(s);
  ASSERT_TRUE(r.bug) << s.name << ": " << r.verdict();
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::thread_safety_violation);
  const std::string message = without_object_id(r.bug->message);
  EXPECT_TRUE(message == s.message_worker_second() || message == s.message_main_second())
      << r.bug->message << "\nexpected\n" << s.message_worker_second() << "\nor\n" << s.message_main_second();
  EXPECT_NE(r.bug->where.file.find("checked_test.cpp"), std::string::npos);
  EXPECT_EQ(r.bug->where.line, static_cast<std::uint32_t>(message == s.message_worker_second()
                                                              ? s.worker_call.line
                                                              : s.main_call.line));
}

TEST_P(overlapping_calls, fixed_with_a_mutex_pass_2000_iterations) {
  const scenario& s = GetParam();
  const heddle::result r = heddle::explore(quiet({.iterations = 2000}), s.fixed);
  EXPECT_TRUE(r) << s.name << ": " << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TEST_P(overlapping_calls, replay_the_same_bug_100_of_100_times) {
  const scenario& s = GetParam();
  const heddle::result& found = first_bug(s);
  ASSERT_TRUE(found.bug);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("heddle-checks-" + std::to_string(::getpid()) + "-" + s.name + ".json");
  std::ofstream(file, std::ios::binary) << heddle::to_json(found.trace);
  heddle::options o = quiet({.iterations = 1});
  o.replay = file.string();
  int reproduced = 0;
  for (int i = 0; i < 100; ++i) {
    const heddle::result r = heddle::explore(o, s.buggy);
    if (r.bug && !r.divergence && r.bug->kind == found.bug->kind && r.bug->message == found.bug->message &&
        r.bug->step == found.bug->step && r.trace.steps == found.trace.steps)
      ++reproduced;
  }
  std::filesystem::remove(file);
  EXPECT_EQ(reproduced, 100);
}

INSTANTIATE_TEST_SUITE_P(each_container, overlapping_calls, testing::ValuesIn(all_scenarios()),
                         [](const testing::TestParamInfo<scenario>& p) { return p.param.name; });

// The points carry read and write on the container, so dpor knows reads
// commute and a write does not: it finds the overlap, and verifies the twin by
// exhausting its classes.
TEST(checked, dpor_finds_a_read_write_overlap_and_verifies_the_fixed_twin) {
  const scenario s = overlap<vector_t>("dpor", [] { return vector_t{1}; }, vector_push_back, vector_size);
  const heddle::result found = heddle::explore(quiet({.iterations = 10'000, .strategy = "dpor"}), s.buggy);
  ASSERT_TRUE(found.bug) << found.verdict();
  EXPECT_EQ(found.bug->kind, heddle::bug_kind::thread_safety_violation);
  const heddle::result fixed = heddle::explore(quiet({.iterations = 100'000, .strategy = "dpor"}), s.fixed);
  EXPECT_TRUE(fixed) << fixed.report;
  EXPECT_TRUE(fixed.stats.exhausted);
}

// The case: two threads write one checked unordered_map. The report
// names both operator[] calls; the twin takes a mutex.
TEST(checked, two_threads_writing_an_unordered_map_overlap_and_a_mutex_fixes_it) {
  constexpr int first_line = __LINE__;
  const auto buggy = [] {
    unordered_map_t hits;
    heddle::thread t([&] { hits["x"] += 1; });
    hits["y"] += 1;
    t.join();
  };
  const heddle::result r = heddle::explore(quiet({.iterations = 10'000}), buggy);
  ASSERT_TRUE(r.bug) << r.verdict();
  EXPECT_EQ(r.bug->kind, heddle::bug_kind::thread_safety_violation);
  const call_site worker{"operator[]", "write", first_line + 3}, on_main{"operator[]", "write", first_line + 4};
  const std::string message = without_object_id(r.bug->message);
  EXPECT_TRUE(message == text_of("unordered_map", worker, "operation 2", on_main, "operation 1 (main)") ||
              message == text_of("unordered_map", on_main, "operation 1 (main)", worker, "operation 2"))
      << r.bug->message;

  const heddle::result fixed = heddle::explore(quiet({.iterations = 2000}), [] {
    unordered_map_t hits;
    heddle::mutex m;
    heddle::thread t([&] {
      std::lock_guard lock(m);
      hits["x"] += 1;
    });
    {
      std::lock_guard lock(m);
      hits["y"] += 1;
    }
    t.join();
  });
  EXPECT_TRUE(fixed) << fixed.report;
}

// Reads never conflict with reads, on any container: every read of the API a
// reader uses most, from two threads at once, for 2,000 iterations.
TEST(checked, concurrent_reads_of_each_container_are_no_violation) {
  const heddle::result r = heddle::explore(quiet({.iterations = 2000}), [] {
    const vector_t v{1, 2, 3};
    const deque_t d{1, 2, 3};
    const string_t s("abc");
    const map_t m{{1, 1}, {2, 2}};
    const unordered_map_t u{{"a", 1}};
    auto read_all = [&] {
      int sum = 0;
      sum += static_cast<int>(v.size()) + v[0] + v.at(1) + v.front() + v.back() + *v.begin() + *v.data();
      sum += static_cast<int>(v.end() - v.cbegin()) + (v.empty() ? 1 : 0) + static_cast<int>(v.capacity() > 0);
      for (int x : v) sum += x;
      sum += static_cast<int>(d.size()) + d[1] + d.at(0) + d.front() + d.back() + *d.rbegin();
      sum += static_cast<int>(s.size() + s.length() + s.find('b') + s.substr(1).size()) + (s.starts_with("ab") ? 1 : 0);
      sum += s[0] + static_cast<int>(s.c_str()[1]) + (s.contains('c') ? 1 : 0) + (s == "abc" ? 1 : 0);
      sum += static_cast<int>(m.size() + m.count(1)) + m.at(2) + m.find(1)->second + m.lower_bound(1)->first;
      sum += (m.contains(3) ? 1 : 0) + m.begin()->second;
      sum += static_cast<int>(u.size() + u.count("a") + u.bucket_count()) + u.at("a") + u.find("a")->second;
      for (const auto& [key, value] : u) sum += value + static_cast<int>(key.size());
      HEDDLE_ASSERT(sum > 0);
    };
    heddle::thread t(read_all);
    read_all();
    t.join();
  });
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.stats.iterations, 2000u);
}

TEST(checked, a_read_overlapping_a_write_is_found_in_either_order_of_the_message) {
  // Whichever call began second reports: the earlier call is still in flight.
  const scenario s = overlap<vector_t>("example", [] { return vector_t{1}; }, vector_push_back, vector_size);
  bool worker_second = false, main_second = false;
  for (std::uint64_t seed = 1; seed <= 40 && !(worker_second && main_second); ++seed) {
    heddle::options o = quiet({.iterations = 10'000, .strategy = "random"});
    o.seed = seed;
    const heddle::result r = heddle::explore(o, s.buggy);
    ASSERT_TRUE(r.bug);
    const std::string message = without_object_id(r.bug->message);
    worker_second |= message == s.message_worker_second();
    main_second |= message == s.message_main_second();
  }
  EXPECT_TRUE(worker_second);
  EXPECT_TRUE(main_second);
}

TEST(checked, one_operation_never_conflicts_with_itself) {
  const heddle::result r = heddle::explore(quiet({.iterations = 500}), [] {
    vector_t a{1, 2}, b{3};
    heddle::thread t([&] {
      a.swap(b);                  // writes both, nested
      a.push_back(static_cast<int>(a.size()));  // a read, then a write, by one operation
      a = b;                      // a write of a inside which b is read
    });
    t.join();
    HEDDLE_ASSERT(a.size() == 2 && b.size() == 2);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(checked, a_call_that_throws_is_no_longer_in_flight) {
  // at() out of range throws; its call must end, or main's later push_back
  // (ordered after it by join) would be reported.
  const heddle::result r = heddle::explore(quiet({.iterations = 500}), [] {
    vector_t v{1};
    heddle::thread t([&] {
      try {
        (void)v.at(5);
      } catch (const std::out_of_range&) {
      }
    });
    t.join();
    v.push_back(2);
    HEDDLE_ASSERT(v.size() == 2);
  });
  EXPECT_TRUE(r) << r.report;
}

TEST(checked, destroying_a_container_during_another_operations_call_is_a_violation) {
  // The destructor is a write. Main ends every iteration right after it (an
  // assertion), so the worker never touches the destroyed container; the
  // iterations where the worker's size() was in flight report the overlap.
  heddle::options o = quiet({.iterations = 2000});
  o.stop_on_first_bug = false;
  const heddle::result r = heddle::explore(o, [] {
    auto v = std::make_unique<vector_t>(vector_t{1, 2});
    heddle::thread t([&] { (void)v->size(); });
    heddle::this_thread::yield();  // main's other work
    v.reset();
    HEDDLE_ASSERT_MSG(false, "the iteration ends here");
  });
  const std::string expected =
      "thread-safety violation: destructor (write) on checked vector #N by operation 1 (main) overlaps size (read) "
      "by operation 2 at checked_test.cpp:";
  bool found = false;
  for (const heddle::bug_group& g : r.bugs) {
    if (g.bug.kind != heddle::bug_kind::thread_safety_violation) continue;
    found = true;
    EXPECT_EQ(without_object_id(g.bug.message).rfind(expected, 0), 0u) << g.bug.message;
  }
  EXPECT_TRUE(found) << r.verdict();
}

// A container that outlives an iteration (a global) starts the next one with
// no call in flight, even when the last one ended inside a call.
vector_t global_vector{0};

TEST(checked, a_global_container_forgets_the_calls_of_an_ended_iteration) {
  const heddle::result buggy = heddle::explore(quiet({.iterations = 10'000}), [] {
    heddle::thread t([] { global_vector.push_back(1); });
    (void)global_vector.size();
    t.join();
  });
  ASSERT_TRUE(buggy.bug);
  const heddle::result fixed = heddle::explore(quiet({.iterations = 500}), [] {
    heddle::thread t([] { (void)global_vector.size(); });
    t.join();
    global_vector.push_back(1);
  });
  EXPECT_TRUE(fixed) << fixed.report;
}

TEST(checked, outside_control_it_is_the_std_container) {
  vector_t v{3, 1, 2};
  std::sort(v.begin(), v.end());
  v.emplace_back(4);
  v.insert(v.begin(), 0);
  EXPECT_EQ(v.unchecked(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_THROW((void)v.at(9), std::out_of_range);

  map_t m;
  m[2] = 20;
  m.try_emplace(1, 10);
  m.insert_or_assign(2, 21);
  EXPECT_EQ(m.unchecked(), (std::map<int, int>{{1, 10}, {2, 21}}));

  string_t s = "ab";
  s += 'c';
  s += "de";
  s.insert(0, "<");
  EXPECT_EQ(s.unchecked(), "<abcde");
  EXPECT_TRUE(s == "<abcde");
  EXPECT_EQ(s.find("cd"), 3u);

  deque_t d;
  d.push_front(1);
  d.push_back(2);
  d.emplace_front(0);
  EXPECT_EQ(d.unchecked(), (std::deque<int>{0, 1, 2}));

  unordered_map_t u;
  u["a"] = 1;
  EXPECT_EQ(erase_if(u, [](const auto& kv) { return kv.second == 1; }), 1u);
  EXPECT_TRUE(u.empty());

  // Real threads may read one object concurrently outside control, as std allows.
  const vector_t shared{1, 2, 3};
  int a = 0, b = 0;
  std::thread r1([&] { a = shared[0] + static_cast<int>(shared.size()); });
  std::thread r2([&] { b = shared.back(); });
  r1.join();
  r2.join();
  EXPECT_EQ(a + b, 7);
}

}  // namespace
