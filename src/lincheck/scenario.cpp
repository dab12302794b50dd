// Scenario generation: from a seed, an init part, T threads of K calls, and a
// post part, drawing operations uniformly and arguments from the declared
// generators. Restrictions: an operation declared once() appears at most once
// per scenario; the operations of a group() are called by one thread only in
// the parallel part (a thread chosen per scenario), and freely in the
// sequential parts. A thread left with no allowed operation is shorter.
//
// Also a scenario as a trace's input (scenario.hpp's kept_scenario), and the
// smaller scenarios the runner's minimizer tries, as Lincheck and
// QuickCheck's shrinking does.
#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "lincheck/scenario.hpp"
#include "strategies/rng.hpp"

namespace heddle::lincheck::detail {

scenario generate_scenario(const erased_spec& spec, const lincheck::options& opts, random_source& r) {
  scenario sc;
  std::vector<bool> used(spec.ops.size(), false);
  std::size_t next_id = 0;
  std::map<std::string, std::size_t> group_thread;
  for (const operation_decl& d : spec.ops)
    if (!d.group.empty() && !group_thread.contains(d.group))
      group_thread[d.group] = std::uniform_int_distribution<std::size_t>(0, opts.threads - 1)(r);

  // `thread` is the parallel thread, or no thread for the sequential parts.
  auto draw = [&](std::optional<std::size_t> thread) -> std::optional<actor> {
    std::vector<std::size_t> allowed;
    for (std::size_t i = 0; i < spec.ops.size(); ++i) {
      const operation_decl& d = spec.ops[i];
      if (d.once && used[i]) continue;
      if (thread && !d.group.empty() && group_thread[d.group] != *thread) continue;
      allowed.push_back(i);
    }
    if (allowed.empty()) return std::nullopt;
    const std::size_t op = allowed[std::uniform_int_distribution<std::size_t>(0, allowed.size() - 1)(r)];
    used[op] = true;
    return actor{op, spec.ops[op].generate(r), next_id++};
  };
  for (std::size_t i = 0; i < opts.init_ops; ++i)
    if (auto a = draw(std::nullopt)) sc.init.push_back(std::move(*a));
  sc.threads.resize(opts.threads);
  for (std::size_t t = 0; t < opts.threads; ++t)
    for (std::size_t i = 0; i < opts.ops_per_thread; ++i)
      if (auto a = draw(t)) sc.threads[t].push_back(std::move(*a));
  for (std::size_t i = 0; i < opts.post_ops; ++i)
    if (auto a = draw(std::nullopt)) sc.post.push_back(std::move(*a));
  return sc;
}

scenario generate_scenario(const declaration& d, std::uint64_t seed, std::size_t index) {
  random_source r(heddle::detail::iteration_seed(seed, index));
  return generate_scenario(d.erased, d.opts, r);
}

namespace {

constexpr std::string_view tag = "lincheck";

std::string ids(std::string_view part, const std::vector<actor>& actors) {
  std::string out(part);
  out += ':';
  for (std::size_t i = 0; i < actors.size(); ++i) out += fmt::format("{}{}", i == 0 ? "" : ",", actors[i].id);
  return out;
}

const actor* find_call(const scenario& sc, std::size_t id) {
  for (const actor& a : sc.init)
    if (a.id == id) return &a;
  for (const auto& t : sc.threads)
    for (const actor& a : t)
      if (a.id == id) return &a;
  for (const actor& a : sc.post)
    if (a.id == id) return &a;
  return nullptr;
}

}  // namespace

std::vector<std::string> input_of(const kept_scenario& k) {
  std::vector<std::string> out{std::string(tag), fmt::format("scenario:{}", k.index),
                               fmt::format("removals:{}/{}", k.reductions, k.reductions_on_schedule),
                               ids("init", k.sc.init)};
  for (const auto& t : k.sc.threads) out.push_back(ids("thread", t));
  out.push_back(ids("post", k.sc.post));
  return out;
}

kept_scenario scenario_of(const declaration& d, std::uint64_t seed, const std::vector<std::string>& a,
                          const std::string& where) {
  const auto bad = [&](const std::string& what) {
    return usage_error(fmt::format("{} does not fit the declaration: {}", where, what));
  };
  if (a.empty() || a.front() != tag) throw usage_error(fmt::format("{} names no lincheck scenario", where));
  if (a.size() < 5) throw bad("its scenario has no init and post parts");
  kept_scenario k;
  const auto number = [&](std::string_view text, std::size_t& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && end == text.data() + text.size();
  };
  const auto field = [&](const std::string& entry, std::string_view part) {
    if (!entry.starts_with(std::string(part) + ":")) throw bad(fmt::format("expected '{}:' in '{}'", part, entry));
    return std::string_view(entry).substr(part.size() + 1);
  };
  if (!number(field(a[1], "scenario"), k.index) || k.index >= d.opts.scenarios)
    throw bad(fmt::format("'{}' is not one of its {} scenarios", a[1], d.opts.scenarios));
  const std::string_view counts = field(a[2], "removals");
  const std::size_t slash = counts.find('/');
  if (slash == std::string_view::npos || !number(counts.substr(0, slash), k.reductions) ||
      !number(counts.substr(slash + 1), k.reductions_on_schedule))
    throw bad(fmt::format("expected 'removals:R/K' in '{}'", a[2]));
  const scenario generated = generate_scenario(d, seed, k.index);
  const auto parse = [&](const std::string& entry, std::string_view part) {
    std::vector<actor> out;
    std::string_view rest = field(entry, part);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view text = rest.substr(0, comma);
      std::size_t id = 0;
      const actor* found = number(text, id) ? find_call(generated, id) : nullptr;
      if (found == nullptr) throw bad(fmt::format("scenario {} of seed {:#x} has no call {}", k.index, seed, text));
      out.push_back(*found);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return out;
  };
  k.sc.init = parse(a[3], "init");
  for (std::size_t i = 4; i + 1 < a.size(); ++i) k.sc.threads.push_back(parse(a[i], "thread"));
  k.sc.post = parse(a.back(), "post");
  return k;
}

kept_scenario scenario_of(const declaration& d, const trace& t, const std::string& where) {
  if (!t.header.arguments.empty()) return scenario_of(d, t.header.seed, t.header.arguments, where);
  kept_scenario k;
  const auto choice = std::find_if(t.steps.begin(), t.steps.end(),
                                   [](const trace_step& s) { return s.kind == step_kind::choose_int; });
  if (d.opts.scenarios > 1 && choice != t.steps.end()) k.index = choice->value;
  k.sc = generate_scenario(d, t.header.seed, k.index);
  return k;
}

std::vector<scenario> removals(const scenario& sc) {
  std::vector<scenario> out;
  for (std::size_t t = 0; t < sc.threads.size() && sc.threads.size() > 1; ++t) {
    out.push_back(sc);
    out.back().threads.erase(out.back().threads.begin() + static_cast<std::ptrdiff_t>(t));
  }
  const auto without = [&](auto part, std::size_t i) {
    out.push_back(sc);
    auto& calls = part(out.back());
    calls.erase(calls.begin() + static_cast<std::ptrdiff_t>(i));
  };
  for (std::size_t t = 0; t < sc.threads.size(); ++t)
    for (std::size_t i = 0; i < sc.threads[t].size(); ++i)
      without([t](scenario& s) -> std::vector<actor>& { return s.threads[t]; }, i);
  for (std::size_t i = 0; i < sc.init.size(); ++i) without([](scenario& s) -> std::vector<actor>& { return s.init; }, i);
  for (std::size_t i = 0; i < sc.post.size(); ++i) without([](scenario& s) -> std::vector<actor>& { return s.post; }, i);
  return out;
}

}  // namespace heddle::lincheck::detail
