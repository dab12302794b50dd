// strategy_comparison: every bug-suite program under every strategy, the figures
// of docs/strategies.md (scripts/compare_strategies.sh builds and runs it and
// writes that page).
//
// For each program of heddle_bugs::all_programs() and each randomized strategy:
// the share of buggy iterations over a fixed number of iterations (the run goes
// on after a bug) and the iterations to the first bug (its index + 1). For the
// exhaustive strategies: how many schedules they explore on each program when
// they finish within a cap of iterations and of time. Every run uses the
// program's own options (heddle_bugs::options_for) and the default seed, so the
// figures are the same on any machine, except the times and which searches hit
// the time cap.
//
// Output is Markdown on stdout: the tables, then a summary that compares
// `portfolio` with the best single strategy. A strategy the library does not
// know (yet) is reported as unavailable and left out, not an error.
//
//   strategy_comparison [--iterations=N] [--cap=N] [--search-seconds=N] [--strategies=a,b,...]
//                       [--systematic=a,b,...] [--programs=substring]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "programs.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct settings {
  std::uint64_t iterations = 10000;
  std::uint64_t cap = 100000;
  std::uint64_t search_seconds = 15;  // and at most this long per exhaustive search
  std::vector<std::string> strategies{"random", "prob:2", "pct:3", "pctt:3", "pos",
                                      "db:2",   "ql",     "surw",  "portfolio"};
  std::vector<std::string> systematic{"dfs", "dfs:pb=2", "dpor"};
  std::string programs;  // run only programs whose name contains this
};

std::vector<std::string> split(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const auto comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1);
    if (key == "--iterations") {
      s.iterations = std::strtoull(std::string(value).c_str(), nullptr, 10);
    } else if (key == "--cap") {
      s.cap = std::strtoull(std::string(value).c_str(), nullptr, 10);
    } else if (key == "--search-seconds") {
      s.search_seconds = std::strtoull(std::string(value).c_str(), nullptr, 10);
    } else if (key == "--strategies") {
      s.strategies = split(value);
    } else if (key == "--systematic") {
      s.systematic = split(value);
    } else if (key == "--programs") {
      s.programs = std::string(value);
    } else {
      fmt::print(stderr,
                 "strategy_comparison: unknown argument '{}'. Usage: strategy_comparison [--iterations=N] "
                 "[--cap=N] [--search-seconds=N] [--strategies=a,b] [--systematic=a,b] [--programs=substring]\n",
                 arg);
      std::exit(2);
    }
  }
  if (s.iterations == 0 || s.cap == 0 || s.search_seconds == 0) {
    fmt::print(stderr, "strategy_comparison: --iterations, --cap and --search-seconds must be positive whole numbers\n");
    std::exit(2);
  }
  return s;
}

// One program under one randomized strategy.
struct cell {
  std::uint64_t buggy = 0;                // iterations that ended with a bug
  std::uint64_t iterations = 0;           // iterations run
  std::optional<std::uint64_t> first;     // iterations to the first bug
  double seconds = 0;
};

// One program under one exhaustive strategy.
struct search_cell {
  bool exhausted = false;
  std::uint64_t schedules = 0;  // complete schedules explored (stats.schedules)
  std::optional<std::uint64_t> first;
  double seconds = 0;
};

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Runs `p` under `strategy`; nullopt when the library does not know the strategy.
std::optional<cell> measure(const heddle_bugs::program& p, const std::string& strategy, std::uint64_t iterations) {
  const auto start = clock_type::now();
  heddle::options o = heddle_bugs::options_for(p, strategy, iterations);
  o.stop_on_first_bug = false;
  cell c;
  try {
    const heddle::result all = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    c.buggy = all.stats.buggy_iterations;
    c.iterations = all.stats.iterations;
    if (c.buggy > 0) {
      // Every iteration is a function of (seed, index) and of what the strategy
      // learned from the iterations before it, so a second run that stops at
      // the first bug stops at the same iteration as the first run saw it.
      o.stop_on_first_bug = true;
      const heddle::result first = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
      if (first.bug) c.first = first.stats.iterations;
    }
  } catch (const heddle::usage_error&) {
    return std::nullopt;
  }
  c.seconds = seconds_since(start);
  return c;
}

std::optional<search_cell> search(const heddle_bugs::program& p, const std::string& strategy, std::uint64_t cap,
                                  std::uint64_t seconds) {
  const auto start = clock_type::now();
  heddle::options o = heddle_bugs::options_for(p, strategy, cap);
  o.stop_on_first_bug = false;
  o.time_budget = std::chrono::seconds(seconds);
  search_cell c;
  try {
    const heddle::result all = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
    c.exhausted = all.stats.exhausted;
    c.schedules = all.stats.schedules;
    if (all.stats.buggy_iterations > 0) {
      o.stop_on_first_bug = true;
      const heddle::result first = heddle::explore(o, p.buggy, heddle_bugs::identity_of(p));
      if (first.bug) c.first = first.stats.iterations;
    }
  } catch (const heddle::usage_error&) {
    return std::nullopt;
  }
  c.seconds = seconds_since(start);
  return c;
}

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "-";
  const double p = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  if (part == 0) return "0";
  if (p < 0.1) return fmt::format("{:.2f}", p);
  return fmt::format("{:.1f}", p);
}

}  // namespace

int main(int argc, char** argv) {
  const settings s = parse(argc, argv);
  const auto started = clock_type::now();

  std::vector<const heddle_bugs::program*> programs;
  for (const heddle_bugs::program& p : heddle_bugs::all_programs())
    if (s.programs.empty() || p.name.find(s.programs) != std::string_view::npos) programs.push_back(&p);

  // Randomized strategies: program x strategy.
  std::vector<std::string> columns;
  std::vector<std::string> unavailable;
  std::vector<std::vector<cell>> table;  // [column][program]
  std::vector<double> column_seconds;
  for (const std::string& strategy : s.strategies) {
    std::vector<cell> cells;
    double total = 0;
    bool known = true;
    for (const heddle_bugs::program* p : programs) {
      const std::optional<cell> c = measure(*p, strategy, s.iterations);
      if (!c) {
        known = false;
        break;
      }
      total += c->seconds;
      cells.push_back(*c);
      fmt::print(stderr, "  {:<36} {:<10} {:>6} buggy  first {:>6}  {:.2f}s\n", p->name, strategy, c->buggy,
                 c->first ? std::to_string(*c->first) : "-", c->seconds);
    }
    if (!known) {
      unavailable.push_back(strategy);
      continue;
    }
    columns.push_back(strategy);
    table.push_back(std::move(cells));
    column_seconds.push_back(total);
  }

  fmt::print("### Randomized strategies: buggy iterations (%) and iterations to the first bug\n\n");
  fmt::print("Each cell: the percentage of {} iterations that ended with the program's bug, then the iteration "
             "at which the first bug appeared (\"-\": none in {} iterations).\n\n",
             with_commas(s.iterations), with_commas(s.iterations));
  fmt::print("| program |");
  for (const std::string& c : columns) fmt::print(" `{}` |", c);
  fmt::print("\n|---|");
  for (std::size_t i = 0; i < columns.size(); ++i) fmt::print("---|");
  fmt::print("\n");
  for (std::size_t row = 0; row < programs.size(); ++row) {
    fmt::print("| {} |", programs[row]->name);
    for (std::size_t col = 0; col < columns.size(); ++col) {
      const cell& c = table[col][row];
      fmt::print(" {} % / {} |", percent(c.buggy, c.iterations), c.first ? with_commas(*c.first) : "-");
    }
    fmt::print("\n");
  }

  // Summary rows: programs found, sum of iterations to the first bug (a program
  // not found counts as the whole budget, so missing a bug is never cheaper
  // than finding it late), mean share of buggy iterations, time.
  struct summary {
    std::size_t found = 0;
    std::uint64_t first_sum = 0;
    double mean_percent = 0;
  };
  std::vector<summary> sums(columns.size());
  for (std::size_t col = 0; col < columns.size(); ++col) {
    for (const cell& c : table[col]) {
      sums[col].found += c.first ? 1 : 0;
      sums[col].first_sum += c.first ? *c.first : s.iterations;
      sums[col].mean_percent += c.iterations ? 100.0 * static_cast<double>(c.buggy) / static_cast<double>(c.iterations) : 0;
    }
    if (!programs.empty()) sums[col].mean_percent /= static_cast<double>(programs.size());
  }
  fmt::print("| **programs found** |");
  for (const summary& x : sums) fmt::print(" **{} / {}** |", x.found, programs.size());
  fmt::print("\n| **sum of iterations to first bug** (not found = {}) |", with_commas(s.iterations));
  for (const summary& x : sums) fmt::print(" {} |", with_commas(x.first_sum));
  fmt::print("\n| **mean buggy iterations** |");
  for (const summary& x : sums) fmt::print(" {:.1f} % |", x.mean_percent);
  fmt::print("\n| **CPU seconds, whole column** |");
  for (double t : column_seconds) fmt::print(" {:.1f} |", t);
  fmt::print("\n\n");
  if (!unavailable.empty()) {
    fmt::print("Not measured (the library did not know these specs when the table was made): ");
    for (std::size_t i = 0; i < unavailable.size(); ++i) fmt::print("{}`{}`", i ? ", " : "", unavailable[i]);
    fmt::print(".\n\n");
  }

  // portfolio against the best single strategy: most programs found, then the
  // smallest sum of iterations to the first bug.
  std::optional<std::size_t> portfolio, best;
  for (std::size_t col = 0; col < columns.size(); ++col) {
    if (columns[col] == "portfolio") {
      portfolio = col;
      continue;
    }
    if (!best || sums[col].found > sums[*best].found ||
        (sums[col].found == sums[*best].found && sums[col].first_sum < sums[*best].first_sum))
      best = col;
  }
  if (portfolio && best) {
    const summary& p = sums[*portfolio];
    const summary& b = sums[*best];
    fmt::print("**portfolio against the best single strategy** (most programs found, then the smallest sum of "
               "iterations to the first bug): `portfolio` finds {} of {} programs with a sum of {} iterations to "
               "the first bug and {:.1f} % buggy iterations on average; the best single strategy, `{}`, finds {} "
               "with a sum of {} and {:.1f} %.\n\n",
               p.found, programs.size(), with_commas(p.first_sum), p.mean_percent, columns[*best], b.found,
               with_commas(b.first_sum), b.mean_percent);
  }

  // Exhaustive strategies.
  std::vector<std::string> search_columns;
  std::vector<std::vector<search_cell>> searches;
  for (const std::string& strategy : s.systematic) {
    std::vector<search_cell> cells;
    bool known = true;
    for (const heddle_bugs::program* p : programs) {
      const std::optional<search_cell> c = search(*p, strategy, s.cap, s.search_seconds);
      if (!c) {
        known = false;
        break;
      }
      cells.push_back(*c);
      fmt::print(stderr, "  {:<36} {:<10} {} {:>7} schedules  first {:>6}  {:.2f}s\n", p->name, strategy,
                 c->exhausted ? "exhausted" : "capped   ", c->schedules, c->first ? std::to_string(*c->first) : "-",
                 c->seconds);
    }
    if (!known) {
      fmt::print("Not measured: `{}` (the library did not know this spec when the table was made).\n\n", strategy);
      continue;
    }
    search_columns.push_back(strategy);
    searches.push_back(std::move(cells));
  }
  if (!search_columns.empty()) {
    fmt::print("### Exhaustive strategies: schedules explored\n\n");
    fmt::print("Each cell: the number of complete schedules the search explored to cover its whole space "
               "(\"capped\": not finished within {} iterations or {} seconds), then the iteration at which it first "
               "met the bug (\"-\": not met before the cap). Iterations a search stops early (dpor's "
               "sleep-set-blocked ones) are not schedules, so the first buggy iteration can exceed the count.\n\n",
               with_commas(s.cap), s.search_seconds);
    fmt::print("| program |");
    for (const std::string& c : search_columns) fmt::print(" `{}` |", c);
    fmt::print("\n|---|");
    for (std::size_t i = 0; i < search_columns.size(); ++i) fmt::print("---|");
    fmt::print("\n");
    for (std::size_t row = 0; row < programs.size(); ++row) {
      fmt::print("| {} |", programs[row]->name);
      for (std::size_t col = 0; col < search_columns.size(); ++col) {
        const search_cell& c = searches[col][row];
        const std::string explored = c.exhausted ? with_commas(c.schedules) : "capped";
        fmt::print(" {} / {} |", explored, c.first ? with_commas(*c.first) : "-");
      }
      fmt::print("\n");
    }
    fmt::print("\n");
  }
  fmt::print(stderr, "strategy_comparison: done in {:.0f} s\n", seconds_since(started));
  return 0;
}
