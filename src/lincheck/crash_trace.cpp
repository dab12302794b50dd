// A lincheck failure's trace: the kept calls in the header, the file, and the
// replay; see crash_trace.hpp.
#include "lincheck/crash_trace.hpp"

#include <charconv>
#include <cstdio>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "heddle/version.hpp"
#include "lincheck/crash_guard.hpp"
#include "lincheck/scenario.hpp"
#include "runner/iteration_runner.hpp"
#include "strategies/rng.hpp"
#include "strategies/strategies.hpp"

namespace heddle::lincheck::detail {
namespace {

constexpr std::string_view tag = "lincheck";

std::string ids(std::string_view part, const std::vector<actor>& actors) {
  std::string out(part);
  out += ':';
  for (std::size_t i = 0; i < actors.size(); ++i) out += fmt::format("{}{}", i == 0 ? "" : ",", actors[i].id);
  return out;
}

}  // namespace

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

std::vector<std::string> kept_calls(const scenario& sc) {
  std::vector<std::string> out{std::string(tag), ids("init", sc.init)};
  for (const auto& t : sc.threads) out.push_back(ids("thread", t));
  out.push_back(ids("post", sc.post));
  return out;
}

lincheck::options options_of(const declaration& d, const trace& t) {
  lincheck::options o = d.opts;
  o.seed = t.header.seed;
  o.strategy = t.header.strategy;
  o.max_steps = t.header.max_steps;
  o.fail_on_max_steps = t.header.fail_on_max_steps;
  o.memory = t.header.memory;
  o.detect_races = t.header.detect_races;
  return o;
}

scenario scenario_of(const declaration& d, const trace& t, const std::string& path) {
  const std::vector<std::string>& a = t.header.arguments;
  if (a.empty() || a.front() != tag)
    throw usage_error(fmt::format("trace '{}' was not recorded by a lincheck test (it names no lincheck scenario)", path));
  random_source r(heddle::detail::iteration_seed(t.header.seed, t.header.iteration));
  const scenario generated = generate_scenario(d.erased, options_of(d, t), r);

  const auto bad = [&](const std::string& what) {
    return usage_error(fmt::format("trace '{}' does not fit test {}'s declaration: {}", path, t.header.test, what));
  };
  const auto parse = [&](const std::string& entry, std::string_view part) {
    if (!entry.starts_with(std::string(part) + ":")) throw bad(fmt::format("expected '{}:' in '{}'", part, entry));
    std::vector<actor> out;
    std::string_view rest = std::string_view(entry).substr(part.size() + 1);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view number = rest.substr(0, comma);
      std::size_t id = 0;
      const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), id);
      const actor* found = ec == std::errc{} && end == number.data() + number.size() ? find_call(generated, id) : nullptr;
      if (found == nullptr)
        throw bad(fmt::format("scenario {} of seed {:#x} has no call {}", t.header.iteration, t.header.seed,
                              number));
      out.push_back(*found);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return out;
  };
  if (a.size() < 3) throw bad("its scenario has no init and post parts");
  scenario sc;
  sc.init = parse(a[1], "init");
  for (std::size_t i = 2; i + 1 < a.size(); ++i) sc.threads.push_back(parse(a[i], "thread"));
  sc.post = parse(a.back(), "post");
  return sc;
}

std::string save_trace(const declaration& d, const crash_destination& where, std::size_t index, const scenario& sc,
                       std::vector<trace_step> steps, bug found) {
  if (where.test.empty() || where.directory.empty()) return {};
  trace t;
  trace_header& h = t.header;
  h.heddle_version = heddle::version;
  h.program = where.program;
  h.test = where.test;
  h.strategy = d.opts.strategy;
  h.seed = d.opts.seed;
  h.iteration = index;
  h.max_steps = d.opts.max_steps;
  h.fail_on_max_steps = d.opts.fail_on_max_steps;
  h.memory = d.opts.memory;
  h.detect_races = d.opts.detect_races;
  h.arguments = kept_calls(sc);
  found.step = steps.size();
  t.steps = std::move(steps);
  t.found = std::move(found);
  try {
    return heddle::detail::write_new_file(where.directory, "bug", ".json", to_json(t));
  } catch (const std::exception& e) {
    std::fputs(fmt::format("heddle lincheck: the trace was not saved: {}\n", e.what()).c_str(), stderr);
    return {};
  }
}

std::string replay_hint(const crash_destination& where, const std::string& trace_file, std::string_view verb) {
  if (trace_file.empty()) return {};
  return fmt::format("\nThe trace of this run: {}\nIt {} again with: heddle replay {} (or {} --gtest_filter={} "
                     "--heddle_replay={})\n",
                     trace_file, verb, trace_file, where.program, where.test, trace_file);
}

replay_result replay_trace(const declaration& d, const std::string& path, const std::string& test,
                           const std::string& result_file) {
  trace t;
  try {
    t = load_trace(path);
  } catch (const trace_error& e) {
    throw usage_error(e.what());
  }
  if (t.header.test != test)
    throw usage_error(fmt::format("trace '{}' belongs to test '{}', not to {}", path, t.header.test, test));
  const scenario sc = scenario_of(d, t, path);
  const lincheck::options o = options_of(d, t);
  executor exec(d.erased, o);
  crash_guard guard(exec, o, test, result_file);
  guard.enter_scenario(t.header.iteration, sc);
  heddle::detail::replay_strategy replaying(t.steps, t.header.strategy);
  replaying.begin_iteration(0, 0);
  const run_record& r = exec.run(sc, replaying);
  const std::string recorded =
      t.found ? fmt::format("{}: {}", to_string(t.found->kind), t.found->message) : std::string("no failure");
  if (!replaying.stop_reason().empty())
    return {false, {}, fmt::format("the replay diverged from the trace ({}); the trace recorded {}",
                                   replaying.stop_reason(), recorded)};
  if (std::optional<judgement> j = exec.judge(r)) {
    if (t.found && t.found->kind == j->bug.value_or(bug_kind::assertion) &&
        (j->bug || t.found->message.starts_with(j->kind + ": ")))
      return {true, j->kind, j->message};
    return {false, {}, fmt::format("the replay ended with {}: {}, but the trace recorded {}", j->kind, j->message,
                                   recorded)};
  }
  return {false, {}, fmt::format("the replay ended after {} steps without the failure the trace recorded ({})",
                                 r.steps, recorded)};
}

}  // namespace heddle::lincheck::detail
