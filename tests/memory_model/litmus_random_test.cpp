// Random litmus programs under memory_model::rc11: dpor must reach exactly
// the final outcomes dfs reaches (dfs branches on every schedule and every
// reads-from and modification-order choice, so its set is the model's), and
// no outcome that RC11 forbids, as an independent brute-force checker of
// RC11's axioms decides (rc11_checker.hpp). Small
// programs of two or three threads, each a few loads, stores, read-modify-
// writes and fences on two locations with random memory orders, from a fixed
// seed: a differential check of dpor's dependence, sleep sets and the places
// its reversals carry (docs/strategies.md, "dpor under --memory-model rc11").
#include <random>

#include "litmus.hpp"
#include "rc11_checker.hpp"

namespace {

using namespace litmus;

using rc11_checker::op;
using rc11_checker::program;

// With `with_sc` false, no seq_cst access and no fence: then none of the
// model's remaining approximations applies (they all order seq_cst events,
// docs/memory-model.md), and heddle must reach every outcome RC11 allows.
program random_program(std::mt19937& rng, bool with_rmw, bool with_fences, bool with_sc = true) {
  const std::memory_order loads[] = {rlx, acq, with_sc ? sc : acq};
  const std::memory_order stores[] = {rlx, rel, with_sc ? sc : rel};
  const std::memory_order rmws[] = {rlx, acq_rel, with_sc ? sc : std::memory_order_acquire};
  program p(2 + rng() % 2);
  int value = 0;
  for (auto& t : p) {
    t.resize(with_sc ? 1 + rng() % 3 : 2);
    for (op& o : t) {
      unsigned k = rng() % (with_fences ? 10 : 9);  // 0-3 load, 4-6 store, 7-8 rmw, 9 fence
      // Without seq_cst, fewer loads: stores for read-modify-writes to read
      // behind (0-1 load, 2-5 store, 6-8 rmw).
      if (!with_sc) k = k < 2 ? 0 : k < 6 ? 4 + (k - 2) % 3 : 7 + k % 2;
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

bool uses_seq_cst(const program& p) {
  for (const auto& t : p)
    for (const op& o : t)
      if (o.order == sc) return true;
  return false;
}

void check(std::uint32_t seed, int programs, bool with_rmw, bool with_fences, bool with_sc = true) {
  std::mt19937 rng(seed);
  for (int i = 0; i < programs; ++i) {
    const program p = random_program(rng, with_rmw, with_fences, with_sc);
    SCOPED_TRACE("program " + std::to_string(i) + ": " + describe(p));
    const outcomes seen = explore_rc11([&] { return run(p); });  // asserts dpor's outcomes == dfs's
    // Never an outcome RC11 forbids. (RC11 allows more on a few of them:
    // what the model's approximations hide, docs/memory-model.md.)
    const std::set<outcome> rc11 = rc11_checker::allowed(p, 2);
    for (const outcome& o : seen) EXPECT_TRUE(rc11.count(o)) << "RC11 forbids an outcome heddle reached";
    // Without seq_cst events, every outcome RC11 allows (read-modify-writes
    // reading older stores included).
    if (!uses_seq_cst(p)) {
      EXPECT_EQ(seen, rc11) << "heddle hides outcomes RC11 allows";
    }
  }
}

// The checker itself forbids what the classic tables forbid (SB with seq_cst,
// MP with release/acquire, LB, 2+2W with seq_cst) and allows the rest.
TEST(litmus_random, the_rc11_checker_agrees_with_the_classic_tables) {
  using k = op::kind_t;
  const auto all2 = all_outcomes(2, 1);
  // SB: x=1; r1=y || y=1; r2=x, outcome (r1, r2, x, y)
  auto sb = [](std::memory_order m) {
    return program{{{k::store, 0, m, 1}, {k::load, 1, m, 0}}, {{k::store, 1, m, 1}, {k::load, 0, m, 0}}};
  };
  auto reads = [](const std::set<outcome>& s, std::size_t n) {
    outcomes r;
    for (const auto& o : s) r.insert(outcome(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(n)));
    return r;
  };
  EXPECT_EQ(reads(rc11_checker::allowed(sb(rlx), 2), 2), all2);
  EXPECT_EQ(reads(rc11_checker::allowed(sb(sc), 2), 2), without(all2, {{0, 0}}));
  // MP: d=1; f=1 || r1=f; r2=d
  auto mp = [](std::memory_order st, std::memory_order ld) {
    return program{{{k::store, 0, rlx, 1}, {k::store, 1, st, 1}}, {{k::load, 1, ld, 0}, {k::load, 0, rlx, 0}}};
  };
  EXPECT_EQ(reads(rc11_checker::allowed(mp(rlx, rlx), 2), 2), all2);
  EXPECT_EQ(reads(rc11_checker::allowed(mp(rel, acq), 2), 2), without(all2, {{1, 0}}));
  // LB: r1=x; y=1 || r2=y; x=1
  const program lb{{{k::load, 0, rlx, 0}, {k::store, 1, rlx, 1}}, {{k::load, 1, rlx, 0}, {k::store, 0, rlx, 1}}};
  EXPECT_EQ(reads(rc11_checker::allowed(lb, 2), 2), without(all2, {{1, 1}}));
  // 2+2W: x=1; y=2 || y=1; x=2, final (x, y)
  auto w2 = [](std::memory_order m) {
    return program{{{k::store, 0, m, 1}, {k::store, 1, m, 2}}, {{k::store, 1, m, 1}, {k::store, 0, m, 2}}};
  };
  const std::set<outcome> both{{1, 1}, {1, 2}, {2, 1}, {2, 2}};
  EXPECT_EQ(rc11_checker::allowed(w2(rlx), 2), both);
  EXPECT_EQ(rc11_checker::allowed(w2(sc), 2), (std::set<outcome>{{1, 2}, {2, 1}, {2, 2}}));
}

TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_loads_and_stores) { check(1, 40, false, false); }
TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_read_modify_writes) { check(2, 40, true, false); }
TEST(litmus_random, dpor_reaches_the_outcomes_dfs_reaches_with_sc_fences) { check(3, 40, true, true); }
// Read-modify-writes that read older stores (RC11's atomicity the only
// limit), with no seq_cst event: exactly RC11's outcomes, under dfs and dpor.
TEST(litmus_random, without_seq_cst_heddle_reaches_every_outcome_rc11_allows) { check(4, 400, true, false, false); }

}  // namespace
