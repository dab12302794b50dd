// The options of instrumented programs, memory (which plain accesses are
// scheduling points) and detect_races: parsed from flags and the environment,
// rejected with one clear message when bad, and carried by both trace
// encodings so a replay runs under the same rules.
#include <gtest/gtest.h>

#include <cstdlib>

#include "heddle/explore.hpp"
#include "heddle/trace.hpp"
#include "runner/overrides.hpp"

TEST(memory_option, names_parse_and_print_both_ways) {
  for (auto p : {heddle::memory_policy::shared, heddle::memory_policy::all, heddle::memory_policy::none})
    EXPECT_EQ(heddle::parse_memory_policy(heddle::to_string(p)), p);
  EXPECT_FALSE(heddle::parse_memory_policy("some"));
  EXPECT_EQ(heddle::options{}.memory, heddle::memory_policy::shared);
  EXPECT_TRUE(heddle::options{}.detect_races);
}

TEST(memory_option, flag_and_environment_set_it_and_a_bad_value_says_what_is_allowed) {
  heddle::options o;
  heddle::detail::set_option(o, "memory", "all", "--heddle_memory");
  EXPECT_EQ(o.memory, heddle::memory_policy::all);
  heddle::detail::set_option(o, "detect_races", "false", "--heddle_detect_races");
  EXPECT_FALSE(o.detect_races);
  try {
    heddle::detail::set_option(o, "memory", "most", "--heddle_memory");
    FAIL() << "accepted --heddle_memory=most";
  } catch (const heddle::usage_error& e) {
    EXPECT_STREQ(e.what(), "bad value 'most' for --heddle_memory: expected all, shared or none");
  }
  ::setenv("HEDDLE_MEMORY", "none", 1);
  EXPECT_EQ(heddle::detail::with_overrides({}).memory, heddle::memory_policy::none);
  ::unsetenv("HEDDLE_MEMORY");
}

TEST(memory_option, traces_carry_memory_policy_and_race_detection) {
  heddle::trace t;
  t.header.test = "suite.name";
  t.header.memory = heddle::memory_policy::none;
  t.header.detect_races = false;
  t.found = heddle::bug{.kind = heddle::bug_kind::data_race, .message = "data race on 4 bytes"};
  EXPECT_EQ(heddle::trace_from_json(heddle::to_json(t)), t);
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(t)), t);
  t.header.memory = heddle::memory_policy::all;
  t.header.detect_races = true;
  EXPECT_EQ(heddle::trace_from_compact(heddle::to_compact(t)), t);
  // Traces written before these options existed read as the defaults.
  std::string json = heddle::to_json(t);
  const auto at = json.find("\"memory\": \"all\",\n");
  ASSERT_NE(at, std::string::npos) << json;
  json.erase(at, json.find('\n', at) + 1 - at);
  EXPECT_EQ(heddle::trace_from_json(json).header.memory, heddle::memory_policy::shared);
}
