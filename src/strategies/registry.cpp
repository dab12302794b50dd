// Spec strings -> strategies (DESIGN.md section 7). A new strategy is one file
// and one row in `registry` below.
#include <charconv>
#include <string>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

unsigned parse_count(std::string_view spec, std::string_view arg, unsigned low, unsigned high) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), value);
  if (arg.empty() || ec != std::errc{} || end != arg.data() + arg.size() || value < low || value > high)
    throw usage_error(fmt::format("bad strategy spec '{}': expected a whole number from {} to {} after ':'",
                                  spec, low, high));
  return value;
}

// A spec is `name`, `name:argument` or `name(inner spec)`; `arg` is what
// follows the colon or stands between the parentheses.
struct entry {
  std::string_view name;
  std::string_view usage;
  std::unique_ptr<strategy> (*make)(std::string_view spec, std::optional<std::string_view> arg,
                                    const strategy_config& config);
};

void no_argument(std::string_view spec, std::optional<std::string_view> arg) {
  if (arg) throw usage_error(fmt::format("bad strategy spec '{}': this strategy takes no argument", spec));
}

const entry registry[] = {
    {"dfs", "dfs or dfs:pb=K (K = preemption bound, 0..20)",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       if (!arg) return make_dfs_strategy(std::nullopt);
       if (!arg->starts_with("pb="))
         throw usage_error(fmt::format("bad strategy spec '{}': dfs takes only pb=K (a preemption bound)", spec));
       return make_dfs_strategy(parse_count(spec, arg->substr(3), 0, 20));
     }},
    {"dpor", "dpor",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config& config) {
       no_argument(spec, arg);
       return make_dpor_strategy(config.weak_memory);
     }},
    {"random", "random",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       no_argument(spec, arg);
       return make_random_strategy();
     }},
    {"pct", "pct:D (D = depth, 1..100)",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       return make_pct_strategy(arg ? parse_count(spec, *arg, 1, 100) : 3);
     }},
    {"prob", "prob:N (N = coin flips, 1..30)",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       return make_prob_strategy(arg ? parse_count(spec, *arg, 1, 30) : 2);
     }},
    {"pctt", "pctt:D (D = depth, 1..100)",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       return make_pctt_strategy(arg ? parse_count(spec, *arg, 1, 100) : 3);
     }},
    {"pos", "pos",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       no_argument(spec, arg);
       return make_pos_strategy();
     }},
    {"db", "db:D (D = delays, 1..100)",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       return make_delay_bounding_strategy(arg ? parse_count(spec, *arg, 1, 100) : 2);
     }},
    {"fair", "fair(S) or fair(S,after=N)", make_fair_strategy},
    {"portfolio", "portfolio",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config& config) {
       no_argument(spec, arg);
       return make_portfolio_strategy(config);
     }},
    {"ql", "ql",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       no_argument(spec, arg);
       return make_ql_strategy();
     }},
    {"surw", "surw",
     [](std::string_view spec, std::optional<std::string_view> arg, const strategy_config&) {
       no_argument(spec, arg);
       return make_surw_strategy();
     }},
};

}  // namespace

std::unique_ptr<strategy> make_strategy(std::string_view spec, const strategy_config& config) {
  std::string_view name = spec;
  std::optional<std::string_view> arg;
  const auto open = spec.find('(');
  const auto colon = spec.find(':');
  if (open != std::string_view::npos && (colon == std::string_view::npos || open < colon)) {
    if (!spec.ends_with(')'))
      throw usage_error(fmt::format("bad strategy spec '{}': missing ')'", spec));
    name = spec.substr(0, open);
    arg = spec.substr(open + 1, spec.size() - open - 2);
  } else if (colon != std::string_view::npos) {
    name = spec.substr(0, colon);
    arg = spec.substr(colon + 1);
  }
  for (const entry& e : registry)
    if (e.name == name) return with_rare_share(spec, e.make(spec, arg, config));
  std::string known;
  for (const entry& e : registry) known += fmt::format("{}{}", known.empty() ? "" : ", ", e.usage);
  throw usage_error(fmt::format("unknown strategy '{}' (known: {})", spec, known));
}

}  // namespace heddle::detail
