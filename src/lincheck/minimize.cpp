// Minimization of a failing scenario: greedy removal, as in Lincheck and
// QuickCheck's shrinking. Candidates, biggest first: drop a whole thread of the
// parallel part, then one call of the parallel part, then one call of the
// sequential parts. A candidate is kept when it still fails the same way
// (same kind of failure). To keep the schedule where possible, a candidate
// first runs once following the failing run's recorded decisions, the removed
// calls simply absent (their decisions match nothing and are passed over);
// only if that passes are fresh schedules tried. The loop ends when no single
// removal keeps the failure.
#include "lincheck/scenario.hpp"

#include "strategies/rng.hpp"

namespace heddle::lincheck::detail {

std::vector<removal> removals(const scenario& sc, const std::vector<schedule_entry>& schedule) {
  std::vector<removal> out;
  for (std::size_t t = 0; t < sc.threads.size() && sc.threads.size() > 1; ++t) {
    removal c{sc, {}};
    c.sc.threads.erase(c.sc.threads.begin() + static_cast<std::ptrdiff_t>(t));
    for (schedule_entry e : schedule) {
      if (e.thread == t + 1) continue;
      if (e.thread != no_thread && e.thread > t + 1) --e.thread;
      c.schedule.push_back(e);
    }
    out.push_back(std::move(c));
  }
  auto without = [&](auto pick) {
    removal c{sc, schedule};
    pick(c.sc);
    out.push_back(std::move(c));
  };
  for (std::size_t t = 0; t < sc.threads.size(); ++t)
    for (std::size_t i = 0; i < sc.threads[t].size(); ++i)
      without([&](scenario& s) { s.threads[t].erase(s.threads[t].begin() + static_cast<std::ptrdiff_t>(i)); });
  for (std::size_t i = 0; i < sc.init.size(); ++i)
    without([&](scenario& s) { s.init.erase(s.init.begin() + static_cast<std::ptrdiff_t>(i)); });
  for (std::size_t i = 0; i < sc.post.size(); ++i)
    without([&](scenario& s) { s.post.erase(s.post.begin() + static_cast<std::ptrdiff_t>(i)); });
  return out;
}

failing_run minimize(executor& exec, failing_run failing, std::uint64_t seed, result& totals) {
  std::uint64_t attempt = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (removal& c : removals(failing.sc, failing.run.schedule)) {
      ++attempt;
      std::optional<judgement> j = exec.follow(c.sc, c.schedule);
      ++totals.runs;
      const bool on_schedule = j && j->kind == failing.verdict.kind;
      if (!on_schedule) j = exec.explore(c.sc, heddle::detail::iteration_seed(seed, attempt), totals);
      if (j && j->kind == failing.verdict.kind) {
        failing = failing_run{std::move(c.sc), exec.last_run(), std::move(*j), failing.reductions + 1,
                              failing.reductions_on_schedule + (on_schedule ? 1 : 0)};
        progress = true;
        break;
      }
    }
  }
  return failing;
}

}  // namespace heddle::lincheck::detail
