// Random litmus programs under memory_model::rc11: dpor must reach exactly
// the final outcomes dfs reaches (dfs branches on every schedule and every
// reads-from and modification-order choice, so its set is the model's). Small
// programs of two or three threads, each a few loads, stores, read-modify-
// writes and fences on two locations with random memory orders, from a fixed
// seed: a differential check of dpor's dependence, sleep sets and the places
// its reversals carry (docs/strategies.md, "dpor under --memory-model rc11").
#include <random>

#include "litmus.hpp"

namespace {

using namespace litmus;

struct op {
  enum kind_t { load, store, rmw, fence } kind = load;
  int loc = 0;
  std::memory_order order = rlx;
  int value = 0;
};
using program = std::vector<std::vector<op>>;

program random_program(std::mt19937& rng, bool with_rmw, bool with_fences) {
  const std::memory_order loads[] = {rlx, acq, sc};
  const std::memory_order stores[] = {rlx, rel, sc};
  const std::memory_order rmws[] = {rlx, acq_rel, sc};
  program p(2 + rng() % 2);
  int value = 0;
  for (auto& t : p) {
    t.resize(1 + rng() % 3);
    for (op& o : t) {
      const unsigned k = rng() % (with_fences ? 10 : 9);  // 0-3 load, 4-6 store, 7-8 rmw, 9 fence
      o.loc = static_cast<int>(rng() % 2);
      if (k < 4) {
        o.kind = op::load;
        o.order = loads[rng() % 3];
      } else if (k < 7 || (k < 9 && !with_rmw)) {
        o.kind = op::store;
        o.order = stores[rng() % 3];
        o.value = ++value;
      } else if (k < 9) {
        o.kind = op::rmw;
        o.order = rmws[rng() % 3];
        o.value = 10 * ++value;
      } else {
        o.kind = op::fence;
        o.order = sc;
      }
    }
  }
  return p;
}

outcome run(const program& p) {
  heddle::atomic<int> loc[2]{0, 0};
  std::vector<std::vector<int>> seen(p.size());
  auto body = [&](std::size_t t) {
    for (const op& o : p[t]) switch (o.kind) {
        case op::load: seen[t].push_back(loc[o.loc].load(o.order)); break;
        case op::store: loc[o.loc].store(o.value, o.order); break;
        case op::rmw: seen[t].push_back(loc[o.loc].fetch_add(o.value, o.order)); break;
        case op::fence: heddle::atomic_thread_fence(o.order); break;
      }
  };
  std::vector<heddle::thread> threads;
  for (std::size_t t = 1; t < p.size(); ++t) threads.emplace_back([&body, t] { body(t); });
  body(0);
  for (auto& th : threads) th.join();
  outcome out;
  for (const auto& s : seen) out.insert(out.end(), s.begin(), s.end());
  out.push_back(loc[0].load(rlx));
  out.push_back(loc[1].load(rlx));
  return out;
}

std::string describe(const program& p) {
  const char* names[] = {"rlx", "consume", "acq", "rel", "acq_rel", "sc"};
  std::string out;
  for (std::size_t t = 0; t < p.size(); ++t) {
    out += t == 0 ? "" : " || ";
    for (const op& o : p[t]) {
      const std::string l = o.loc == 0 ? "x" : "y";
      const std::string ord = names[static_cast<int>(o.order)];
      switch (o.kind) {
        case op::load: out += "r=" + l + "(" + ord + "); "; break;
        case op::store: out += l + "=" + std::to_string(o.value) + "(" + ord + "); "; break;
        case op::rmw: out += "r=" + l + "+=" + std::to_string(o.value) + "(" + ord + "); "; break;
        case op::fence: out += "F(" + ord + "); "; break;
      }
    }
  }
  return out;
}

void check(std::uint32_t seed, int programs, bool with_rmw, bool with_fences) {
  std::mt19937 rng(seed);
  for (int i = 0; i < programs; ++i) {
    const program p = random_program(rng, with_rmw, with_fences);
    SCOPED_TRACE("program " + std::to_string(i) + ": " + describe(p));
    explore_rc11([&] { return run(p); });  // asserts dpor's outcomes == dfs's
  }
}

TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_loads_and_stores) { check(1, 40, false, false); }
TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_read_modify_writes) { check(2, 40, true, false); }
TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_sc_fences) { check(3, 40, true, true); }

}  // namespace
