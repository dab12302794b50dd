// Sharding by iteration index (--shard I/N, GoogleTest's GTEST_SHARD_* protocol)
// and the merge of shard summaries: three shards run exactly the iterations
// of the unsharded run, schedule for schedule, and their merged summary has
// the unsharded counts.
#include <map>

#include <gtest/gtest.h>

#include "heddle/heddle.hpp"
#include "runner/overrides.hpp"
#include "runner/summary_json.hpp"

namespace {

using nlohmann::json;

void two_writers() {
  int x = 0;
  heddle::mutex m;
  heddle::thread a([&] {
    m.lock();
    x += heddle::choose_bool() ? 1 : 2;
    m.unlock();
  });
  heddle::thread b([&] {
    m.lock();
    x *= 3;
    m.unlock();
  });
  a.join();
  b.join();
  heddle::state_hash(static_cast<std::uint64_t>(x));
  HEDDLE_ASSERT(x != 6);  // a (adding 2) before b: a bug some schedules reach
}

std::map<std::uint64_t, std::uint64_t> schedules(const heddle::result& r) {
  std::map<std::uint64_t, std::uint64_t> by_index;
  for (const heddle::iteration_record& i : r.iterations) by_index[i.index] = i.schedule_hash;
  return by_index;
}

json summary_of(const heddle::options& o, const heddle::result& r) {
  return {{"schema", "heddle-summary"},
          {"schema_version", heddle::detail::summary_schema_version},
          {"program", "two_writers"},
          {"run", {{"shard", {{"index", o.shard_index}, {"count", o.shard_count}}}}},
          {"tests", json::array({heddle::detail::test_record("runner.shards", o, r)})}};
}

TEST(runner_shards, three_shards_run_the_iterations_of_the_unsharded_run_and_merge_to_its_counts) {
  heddle::options o{.iterations = 900, .strategy = "random", .stop_on_first_bug = false, .print_report = false,
                    .out = "", .record_iterations = true};
  const heddle::result whole = heddle::explore(o, two_writers, {"runner.shards", ""});
  ASSERT_EQ(whole.stats.iterations, 900u);
  ASSERT_FALSE(whole.bugs.empty());

  std::map<std::uint64_t, std::uint64_t> united;
  std::vector<json> parts;
  std::vector<std::string> names;
  for (std::uint64_t k = 0; k < 3; ++k) {
    heddle::options shard = o;
    shard.shard_index = k;
    shard.shard_count = 3;
    shard.parallel = k == 1 ? 2 : 0;  // where a shard runs does not matter
    const heddle::result part = heddle::explore(shard, two_writers, {"runner.shards", ""});
    EXPECT_EQ(part.stats.iterations, 300u);
    for (const auto& [index, hash] : schedules(part)) {
      EXPECT_EQ(index % 3, k);
      EXPECT_TRUE(united.emplace(index, hash).second) << "iteration " << index << " ran twice";
    }
    parts.push_back(summary_of(shard, part));
    names.push_back("shard-" + std::to_string(k));
  }
  EXPECT_EQ(united, schedules(whole));

  const json merged = heddle::detail::merge_summaries(parts, names);
  const json expected = heddle::detail::test_record("runner.shards", o, whole);
  const json& test = merged["tests"][0];
  for (const char* field : {"iterations", "steps_total", "steps_min", "steps_max", "max_enabled", "max_steps_hits",
                            "buggy_iterations", "distinct_schedules", "distinct_end_states"})
    EXPECT_EQ(test["stats"][field], expected["stats"][field]) << field;
  EXPECT_EQ(test["stats"]["schedule_hashes"], expected["stats"]["schedule_hashes"]);
  ASSERT_EQ(test["bugs"].size(), expected["bugs"].size());
  for (const json& g : expected["bugs"]) {
    bool found = false;
    for (const json& h : test["bugs"]) {
      if (h["signature"] != g["signature"]) continue;
      found = true;
      EXPECT_EQ(h["count"], g["count"]);
      EXPECT_EQ(h["first_iteration"], g["first_iteration"]);
    }
    EXPECT_TRUE(found) << g["signature"];
  }
  EXPECT_EQ(merged["status"], "bug");
  EXPECT_EQ(merged["exit_code"], 1);
  EXPECT_EQ(merged["shards"].size(), 3u);
}

TEST(runner_shards, shard_spec_is_checked) {
  heddle::options o;
  heddle::detail::set_option(o, "shard", "2/5", "--shard");
  EXPECT_EQ(o.shard_index, 2u);
  EXPECT_EQ(o.shard_count, 5u);
  for (const char* bad : {"5/5", "1", "a/3", "1/0", "-1/3", ""}) {
    try {
      heddle::detail::set_option(o, "shard", bad, "--shard");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const heddle::usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("expected I/N"), std::string::npos) << e.what();
    }
  }
}

TEST(runner_shards, merge_rejects_what_is_not_a_summary) {
  EXPECT_THROW(heddle::detail::merge_summaries({json{{"x", 1}}}, {"x.json"}), heddle::usage_error);
  try {
    heddle::detail::merge_summaries({json{{"schema_version", 7}, {"tests", json::array()}}}, {"new.json"});
    ADD_FAILURE() << "accepted schema version 7";
  } catch (const heddle::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("new.json"), std::string::npos) << e.what();
  }
}

}  // namespace
