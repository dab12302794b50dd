// The run statistics' hash set (runner/statistics.hpp): a flat open-addressing
// table standing in for std::unordered_set. It must count distinct values
// exactly, through growth, collisions and the value 0 (its empty marker), and
// give them back sorted, as the merge of shard summaries expects. And the
// distinct counter built on it: exact up to its limit, estimated past it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "runner/statistics.hpp"

namespace {

using heddle::detail::distinct_counter;
using heddle::detail::hash_set;

TEST(hash_set, counts_distinct_values_through_growth_like_std_set) {
  hash_set set;
  std::set<std::uint64_t> reference;
  std::mt19937_64 gen{42};
  for (int i = 0; i < 50'000; ++i) {
    // Few distinct values among many, so both new and repeated inserts happen.
    const std::uint64_t v = gen() % 20'000;
    EXPECT_EQ(set.insert(v), reference.insert(v).second) << "value " << v;
  }
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_EQ(set.sorted(), std::vector<std::uint64_t>(reference.begin(), reference.end()));
  for (std::uint64_t v = 0; v < 25'000; ++v) EXPECT_EQ(set.contains(v), reference.count(v) == 1) << v;
}

TEST(hash_set, zero_is_a_value_like_any_other) {
  hash_set set;
  EXPECT_FALSE(set.contains(0));
  EXPECT_TRUE(set.insert(0));
  EXPECT_FALSE(set.insert(0));
  EXPECT_TRUE(set.contains(0));
  EXPECT_TRUE(set.insert(~std::uint64_t{0}));
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.sorted(), (std::vector<std::uint64_t>{0, ~std::uint64_t{0}}));
}

TEST(hash_set, values_sharing_their_home_slot_probe_on) {
  // Multiples of 2^54 differ only in their top bits; the Fibonacci product
  // still spreads some of them onto one slot, which linear probing resolves.
  hash_set set;
  for (std::uint64_t k = 1; k <= 1000; ++k) EXPECT_TRUE(set.insert(k << 54 | k));
  for (std::uint64_t k = 1; k <= 1000; ++k) EXPECT_FALSE(set.insert(k << 54 | k));
  EXPECT_EQ(set.size(), 1000u);
  const std::vector<std::uint64_t> sorted = set.sorted();
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
}

TEST(distinct_counter, is_exact_up_to_its_limit) {
  distinct_counter c;
  for (int round = 0; round < 3; ++round)
    for (std::uint64_t v = 1; v <= distinct_counter::exact_limit; ++v) c.insert(v * 0x9e3779b97f4a7c15ull);
  EXPECT_TRUE(c.exact());
  EXPECT_EQ(c.count(), distinct_counter::exact_limit);
  EXPECT_EQ(c.kept().size(), distinct_counter::exact_limit);
}

TEST(distinct_counter, estimates_past_its_limit_within_a_few_percent_and_ignores_repeats) {
  for (const std::uint64_t n : {20'000ull, 100'000ull, 1'000'000ull}) {
    distinct_counter c;
    for (int round = 0; round < 2; ++round)  // every value twice: repeats must not count
      for (std::uint64_t v = 1; v <= n; ++v) c.insert(v);  // sequential: the counter mixes them
    EXPECT_FALSE(c.exact());
    const double error = std::abs(static_cast<double>(c.count()) - static_cast<double>(n)) / static_cast<double>(n);
    EXPECT_LT(error, 0.05) << n << " values counted as " << c.count();
    EXPECT_EQ(c.kept().size(), distinct_counter::exact_limit);  // memory stays bounded
  }
}

}  // namespace
