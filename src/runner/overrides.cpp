#include "runner/overrides.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "runner/suppressions.hpp"

namespace heddle::detail {
namespace {

bool parse_bool(std::string_view text, std::string_view what) {
  if (text == "1" || text == "true" || text == "yes" || text == "on" || text.empty()) return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  throw usage_error(fmt::format("bad value '{}' for {}: expected true or false", text, what));
}

struct option_entry {
  std::string_view name;
  void (*set)(options& o, std::string_view value, std::string_view what);
};

const option_entry table[] = {
    {"iterations", [](options& o, std::string_view v, std::string_view w) {
       o.iterations = parse_unsigned(v, w);
       if (o.iterations == 0) throw usage_error(fmt::format("bad value '{}' for {}: must be at least 1", v, w));
     }},
    {"time_budget", [](options& o, std::string_view v, std::string_view w) { o.time_budget = parse_duration(v, w); }},
    {"strategy", [](options& o, std::string_view v, std::string_view) { o.strategy = std::string(v); }},
    {"seed", [](options& o, std::string_view v, std::string_view w) { o.seed = parse_unsigned(v, w); }},
    {"max_steps", [](options& o, std::string_view v, std::string_view w) {
       o.max_steps = parse_unsigned(v, w);
       if (o.max_steps == 0) throw usage_error(fmt::format("bad value '{}' for {}: must be at least 1", v, w));
     }},
    {"fail_on_max_steps", [](options& o, std::string_view v, std::string_view w) { o.fail_on_max_steps = parse_bool(v, w); }},
    {"spurious_wakeups", [](options& o, std::string_view v, std::string_view w) { o.spurious_wakeups = parse_bool(v, w); }},
    {"spurious_cas_failures", [](options& o, std::string_view v, std::string_view w) { o.spurious_cas_failures = parse_bool(v, w); }},
    {"stack_size", [](options& o, std::string_view v, std::string_view w) {
       o.stack_size = parse_unsigned(v, w);
       if (o.stack_size < 16384) throw usage_error(fmt::format("bad value '{}' for {}: at least 16384 bytes", v, w));
     }},
    {"out", [](options& o, std::string_view v, std::string_view) { o.out = std::string(v); }},
    {"fair_after", [](options& o, std::string_view v, std::string_view w) { o.fair_after = parse_unsigned(v, w); }},
    {"stop_on_first_bug", [](options& o, std::string_view v, std::string_view w) { o.stop_on_first_bug = parse_bool(v, w); }},
    {"print_report", [](options& o, std::string_view v, std::string_view w) { o.print_report = parse_bool(v, w); }},
    {"replay", [](options& o, std::string_view v, std::string_view) { o.replay = std::string(v); }},
    {"parallel", [](options& o, std::string_view v, std::string_view w) {
       const std::uint64_t n = parse_unsigned(v, w);
       if (n > 1024) throw usage_error(fmt::format("bad value '{}' for {}: at most 1024 workers", v, w));
       o.parallel = static_cast<unsigned>(n);
     }},
    {"iteration_timeout", [](options& o, std::string_view v, std::string_view w) { o.iteration_timeout = parse_duration(v, w); }},
    // Both shard fields at once, as "I/N": one name for --shard, --heddle_shard, HEDDLE_SHARD.
    {"shard", [](options& o, std::string_view v, std::string_view w) {
       const auto slash = v.find('/');
       const auto bad = [&] {
         return usage_error(fmt::format("bad value '{}' for {}: expected I/N with 0 <= I < N, such as 0/3", v, w));
       };
       if (slash == std::string_view::npos) throw bad();
       std::uint64_t index = 0, count = 0;
       try {
         index = parse_unsigned(v.substr(0, slash), w);
         count = parse_unsigned(v.substr(slash + 1), w);
       } catch (const usage_error&) {
         throw bad();
       }
       if (count == 0 || index >= count) throw bad();
       o.shard_index = index;
       o.shard_count = count;
     }},
    {"check_determinism", [](options& o, std::string_view v, std::string_view w) { o.check_determinism = parse_bool(v, w); }},
    {"progress", [](options& o, std::string_view v, std::string_view w) { o.progress = parse_bool(v, w); }},
    {"record_iterations", [](options& o, std::string_view v, std::string_view w) { o.record_iterations = parse_bool(v, w); }},
    {"memory", [](options& o, std::string_view v, std::string_view w) {
       const auto policy = parse_memory_policy(v);
       if (!policy) throw usage_error(fmt::format("bad value '{}' for {}: expected all, shared or none", v, w));
       o.memory = *policy;
     }},
    {"memory_model", [](options& o, std::string_view v, std::string_view w) {
       const auto model = parse_memory_model(v);
       if (!model) throw usage_error(fmt::format("bad value '{}' for {}: expected sc or rc11", v, w));
       o.memory_model = *model;
     }},
    {"detect_races", [](options& o, std::string_view v, std::string_view w) { o.detect_races = parse_bool(v, w); }},
    {"backend", [](options& o, std::string_view v, std::string_view w) { o.backend = parse_backend(v, w); }},
    {"exit_code_is_bug", [](options& o, std::string_view v, std::string_view w) { o.exit_code_is_bug = parse_bool(v, w); }},
    {"minimize", [](options& o, std::string_view v, std::string_view w) { o.minimize = parse_bool(v, w); }},
    {"scenarios", [](options& o, std::string_view v, std::string_view w) {
       o.scenarios = parse_unsigned(v, w);
       if (o.scenarios == 0) throw usage_error(fmt::format("bad value '{}' for {}: must be at least 1", v, w));
     }},
    {"suppressions", [](options& o, std::string_view v, std::string_view w) {
       // Read here, so a missing or malformed file is one line before anything runs.
       (void)parse_suppressions_file(v, w);
       // Absolute: traces record it, and a replay may run elsewhere.
       std::error_code ec;
       const std::filesystem::path absolute = std::filesystem::absolute(std::string(v), ec);
       o.suppressions = ec ? std::string(v) : absolute.string();
     }},
    {"expect_exit", [](options& o, std::string_view v, std::string_view w) {
       const std::uint64_t code = parse_unsigned(v, w);
       if (code > 255) throw usage_error(fmt::format("bad value '{}' for {}: an exit status is 0 to 255", v, w));
       o.expect_exit = static_cast<int>(code);
     }},
};

}  // namespace

std::string parse_backend(std::string_view text, std::string_view what) {
  if (text == "fibers" || text == "threads") return std::string(text);
  throw usage_error(fmt::format("bad value '{}' for {}: expected fibers or threads", text, what));
}

std::uint64_t parse_unsigned(std::string_view text, std::string_view what) {
  std::uint64_t value = 0;
  int base = 10;
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
    throw usage_error(fmt::format("bad value '{}' for {}: expected a whole number", text, what));
  return value;
}

std::chrono::milliseconds parse_duration(std::string_view text, std::string_view what) {
  std::string_view number = text;
  std::uint64_t scale = 1000;  // seconds by default
  if (number.ends_with("ms")) { scale = 1; number.remove_suffix(2); }
  else if (number.ends_with("s")) { number.remove_suffix(1); }
  else if (number.ends_with("m")) { scale = 60'000; number.remove_suffix(1); }
  else if (number.ends_with("h")) { scale = 3'600'000; number.remove_suffix(1); }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc{} || end != number.data() + number.size())
    throw usage_error(fmt::format("bad value '{}' for {}: expected a duration such as 30s, 500ms or 5m", text, what));
  return std::chrono::milliseconds(value * scale);
}

namespace {
std::string variable_of(std::string_view name) {
  std::string variable = "HEDDLE_";
  for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return variable;
}
}  // namespace

// HEDDLE_OPTIONS="suppressions=race.supp:max_steps=50000", as TSAN_OPTIONS:
// name=value entries separated by spaces or colons; `each` gets every
// non-empty entry.
template <typename F>
void for_each_options_entry(F each) {
  const char* text = std::getenv("HEDDLE_OPTIONS");
  if (text == nullptr) return;
  const std::string_view all(text);
  std::size_t at = 0;
  while (at < all.size()) {
    const std::size_t end = std::min(all.find_first_of(" :", at), all.size());
    const std::string_view entry = all.substr(at, end - at);
    at = end + 1;
    if (!entry.empty()) each(entry);
  }
}

bool option_given(std::string_view name) {
  if (flag_overrides().contains(std::string(name)) || std::getenv(variable_of(name).c_str()) != nullptr) return true;
  bool in_variable = false;
  for_each_options_entry([&](std::string_view entry) { in_variable |= entry.substr(0, entry.find('=')) == name; });
  return in_variable;
}

bool is_option_name(std::string_view name) {
  for (const option_entry& e : table)
    if (e.name == name) return true;
  return false;
}

void set_option(options& o, std::string_view name, std::string_view value, std::string_view source) {
  for (const option_entry& e : table) {
    if (e.name == name) {
      e.set(o, value, source);
      return;
    }
  }
  throw usage_error(fmt::format("unknown option {}", source));
}

std::map<std::string, std::string>& flag_overrides() {
  static std::map<std::string, std::string> flags;
  return flags;
}

bool backend_requested(const options& given) {
  return given.backend != options{}.backend || std::getenv("HEDDLE_BACKEND") != nullptr ||
         flag_overrides().contains("backend");
}

// HEDDLE_OPTIONS's entries; the single HEDDLE_* variables and the flags come
// after it.
void apply_options_variable(options& o) {
  for_each_options_entry([&](std::string_view entry) {
    const auto equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals);
    if (equals == std::string_view::npos || !is_option_name(name))
      throw usage_error(fmt::format("bad entry '{}' in HEDDLE_OPTIONS: expected name=value with a heddle option "
                                    "name (suppressions, max_steps, spurious_wakeups, ...)",
                                    entry));
    set_option(o, name, entry.substr(equals + 1), fmt::format("{} in HEDDLE_OPTIONS", name));
  });
}

options with_overrides(options o) {
  apply_options_variable(o);
  for (const option_entry& e : table) {
    const std::string variable = variable_of(e.name);
    if (const char* v = std::getenv(variable.c_str()); v != nullptr) e.set(o, v, variable);
  }
  for (const auto& [name, value] : flag_overrides()) set_option(o, name, value, "--heddle_" + name);
  return o;
}

}  // namespace heddle::detail
