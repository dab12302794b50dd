// The hash by which statistics tell an iteration's schedule from another's
// (statistics::distinct_schedules, iteration_record::schedule_hash).
//
// One rotate, xor and multiply per step, folded in order, and a full mix once
// at the end. The engine folds each decision in as it records it, so an
// iteration's hash costs nothing to compute afterwards; workers and the fork
// server fold a trace's steps the same way, so one schedule has one hash
// wherever it ran. The rotation carries the high bits (the step kind) down
// into the low ones. No file format stores these values beyond one run's
// summaries: they may change between versions.
#pragma once

#include <bit>
#include <cstdint>

#include "heddle/trace.hpp"

namespace heddle::detail {

inline constexpr std::uint64_t schedule_hash_start = 0x68656464'6c65ull;

constexpr std::uint64_t schedule_hash_step(std::uint64_t h, step_kind kind, std::uint64_t value) noexcept {
  return (std::rotl(h, 23) ^ (static_cast<std::uint64_t>(kind) << 56 ^ value)) * 0x9e3779b97f4a7c15ull;
}

// splitmix64's finalizer over a running sum: cheap, and order-sensitive.
constexpr std::uint64_t mix64(std::uint64_t h, std::uint64_t v) noexcept {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

// The folded steps, mixed with their number.
constexpr std::uint64_t schedule_hash_finish(std::uint64_t h, std::uint64_t steps) noexcept { return mix64(h, steps); }

}  // namespace heddle::detail
