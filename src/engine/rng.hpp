// The pseudo-random generator every randomized strategy uses: xoshiro256**
// (Blackman and Vigna, 2018) seeded through splitmix64, with Lemire's
// multiply-shift for unbiased bounded integers. Fast, small, and identical on
// every platform, so a seed means the same schedule everywhere. In the engine's
// folder because the engine draws for `random` itself, without the virtual
// call (strategy::uniform_draws); strategies include it as strategies/rng.hpp.
#pragma once

#include <cstdint>

namespace heddle::detail {

constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The seed of iteration `index` of a run seeded with `seed`: any iteration can
// be re-run alone, and iterations can be split across processes.
constexpr std::uint64_t iteration_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t s = seed ^ (index * 0xd1b54a32d192ed03ull);
  splitmix64(s);
  return splitmix64(s);
}

__extension__ typedef unsigned __int128 uint128;

class rng {
 public:
  explicit rng(std::uint64_t seed = 0) noexcept { reseed(seed); }
  void reseed(std::uint64_t seed) noexcept {
    for (auto& word : s_) word = splitmix64(seed);
  }
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound) noexcept {
    const uint128 m = static_cast<uint128>(next()) * bound;
    if (static_cast<std::uint64_t>(m) < bound) [[unlikely]] return below_retry(bound, m);
    return static_cast<std::uint64_t>(m >> 64);
  }
  bool coin() noexcept { return (next() >> 63) != 0; }

 private:
  // below()'s rare case (probability bound / 2^64): the low word may fall in
  // the biased range; out of line, so the common case inlines small.
  [[gnu::noinline]] std::uint64_t below_retry(std::uint64_t bound, uint128 m) noexcept {
    auto low = static_cast<std::uint64_t>(m);
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      m = static_cast<uint128>(next()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// How randomized strategies answer a data choice: uniform, except that a rare
// event (spurious wake-up, spurious compare-exchange failure) happens with
// probability 1/16, so code paths behind it are tested without drowning the
// common paths.
inline std::uint64_t random_value(rng& r, std::uint64_t bound, bool rare) noexcept {
  if (rare) return r.below(16) == 0 ? 1 : 0;
  return r.below(bound);
}

}  // namespace heddle::detail
