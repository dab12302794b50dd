// The JSON encoding of a trace: what tools and people read.
//
//   {"format": "heddle-trace", "version": 1, "heddle_version": "0.1.0",
//    "program": "/abs/path/tests", "test": "account.withdraw", "strategy": "pct:3",
//    "seed": 42, "iteration": 17,
//    "options": {"max_steps": 20000, "fail_on_max_steps": false, ..., "backend": "fibers"},
//    "arguments": ["--port", "0"],   (push-button traces only)
//    "bug": {"kind": "assertion", "message": "...", "operation": 2, ...},
//    "steps": [["run", 1, "start", 1], ["bool", 1, "choose", 0], ["int", 2, "signal", 4], ...]}
//
// Every step is [what, value, point, object]: "run" chooses operation `value`,
// "bool"/"int" take `value` for a data choice.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/names.hpp"
#include "heddle/trace.hpp"

namespace heddle {

using nlohmann::json;

namespace {
constexpr const char* step_names[] = {"run", "bool", "int"};

json bug_to_json(const bug& b) {
  return {{"kind", to_string(b.kind)},
          {"message", b.message},
          {"operation", b.operation},
          {"operation_name", b.operation_name},
          {"file", b.where.file},
          {"line", b.where.line},
          {"function", b.where.function},
          {"step", b.step}};
}

template <class T>
T field(const json& j, const char* name, const char* where) {
  const auto it = j.find(name);
  if (it == j.end()) throw trace_error(fmt::format("malformed trace: {} has no \"{}\"", where, name));
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw trace_error(fmt::format("malformed trace: \"{}\" in {} has the wrong type", name, where));
  }
}
}  // namespace

std::string to_json(const trace& t) {
  const trace_header& h = t.header;
  json j = {{"format", "heddle-trace"},
            {"version", h.format_version},
            {"heddle_version", h.heddle_version},
            {"program", h.program},
            {"test", h.test},
            {"strategy", h.strategy},
            {"seed", h.seed},
            {"iteration", h.iteration},
            {"options",
             {{"max_steps", h.max_steps},
              {"fail_on_max_steps", h.fail_on_max_steps},
              {"spurious_wakeups", h.spurious_wakeups},
              {"spurious_cas_failures", h.spurious_cas_failures},
              {"memory", to_string(h.memory)},
              {"memory_model", to_string(h.memory_model)},
              {"detect_races", h.detect_races},
              {"backend", h.backend}}}};
  if (h.iteration_timeout_ms != 0) j["options"]["iteration_timeout_ms"] = h.iteration_timeout_ms;
  if (!h.arguments.empty()) j["arguments"] = h.arguments;
  if (h.expect_exit >= 0) j["options"]["expect_exit"] = h.expect_exit;
  if (!h.suppressions.empty()) j["options"]["suppressions"] = h.suppressions;
  if (t.found) j["bug"] = bug_to_json(*t.found);
  json steps = json::array();
  for (const trace_step& s : t.steps)
    steps.push_back({step_names[static_cast<int>(s.kind)], s.value, to_string(s.point), s.object});
  j["steps"] = std::move(steps);
  return j.dump(1) + "\n";
}

trace trace_from_json(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw trace_error(fmt::format("malformed trace: not valid JSON ({})", e.what()));
  }
  if (!j.is_object() || j.value("format", "") != "heddle-trace")
    throw trace_error("malformed trace: not a heddle trace (no \"format\": \"heddle-trace\")");
  trace t;
  trace_header& h = t.header;
  h.format_version = field<int>(j, "version", "the trace");
  if (h.format_version != trace_format_version)
    throw trace_error(fmt::format("unsupported trace format version {} (this heddle reads version {})",
                                  h.format_version, trace_format_version));
  h.heddle_version = field<std::string>(j, "heddle_version", "the trace");
  h.program = field<std::string>(j, "program", "the trace");
  h.test = field<std::string>(j, "test", "the trace");
  h.strategy = field<std::string>(j, "strategy", "the trace");
  h.seed = field<std::uint64_t>(j, "seed", "the trace");
  h.iteration = field<std::uint64_t>(j, "iteration", "the trace");
  const json options = field<json>(j, "options", "the trace");
  h.max_steps = field<std::uint64_t>(options, "max_steps", "\"options\"");
  h.fail_on_max_steps = field<bool>(options, "fail_on_max_steps", "\"options\"");
  h.spurious_wakeups = field<bool>(options, "spurious_wakeups", "\"options\"");
  h.spurious_cas_failures = field<bool>(options, "spurious_cas_failures", "\"options\"");
  if (options.contains("memory")) {  // absent from traces written before the option existed
    const auto memory = parse_memory_policy(field<std::string>(options, "memory", "\"options\""));
    if (!memory) throw trace_error("malformed trace: \"memory\" in \"options\" is not all, shared or none");
    h.memory = *memory;
  }
  if (options.contains("memory_model")) {  // absent from traces written before the option existed
    const auto model = parse_memory_model(field<std::string>(options, "memory_model", "\"options\""));
    if (!model) throw trace_error("malformed trace: \"memory_model\" in \"options\" is not sc or rc11");
    h.memory_model = *model;
  }
  if (options.contains("detect_races")) h.detect_races = field<bool>(options, "detect_races", "\"options\"");
  // Both are newer than format 1's first traces: absent means fibers, no arguments.
  if (options.contains("backend")) h.backend = field<std::string>(options, "backend", "\"options\"");
  if (h.backend != "fibers" && h.backend != "threads")
    throw trace_error(fmt::format("malformed trace: unknown backend \"{}\" in \"options\"", h.backend));
  if (options.contains("iteration_timeout_ms"))
    h.iteration_timeout_ms = field<std::uint64_t>(options, "iteration_timeout_ms", "\"options\"");
  if (options.contains("expect_exit")) {
    h.expect_exit = field<int>(options, "expect_exit", "\"options\"");
    if (h.expect_exit < 0 || h.expect_exit > 255)
      throw trace_error("malformed trace: \"expect_exit\" in \"options\" is not an exit status (0 to 255)");
  }
  if (options.contains("suppressions")) h.suppressions = field<std::string>(options, "suppressions", "\"options\"");
  if (j.contains("arguments")) h.arguments = field<std::vector<std::string>>(j, "arguments", "the trace");
  if (const auto b = j.find("bug"); b != j.end()) {
    bug found;
    const auto kind = parse_bug_kind(field<std::string>(*b, "kind", "\"bug\""));
    if (!kind) throw trace_error("malformed trace: unknown bug kind in \"bug\"");
    found.kind = *kind;
    found.message = field<std::string>(*b, "message", "\"bug\"");
    found.operation = field<operation_id>(*b, "operation", "\"bug\"");
    found.operation_name = field<std::string>(*b, "operation_name", "\"bug\"");
    found.where.file = field<std::string>(*b, "file", "\"bug\"");
    found.where.line = field<std::uint32_t>(*b, "line", "\"bug\"");
    found.where.function = field<std::string>(*b, "function", "\"bug\"");
    found.step = field<std::uint64_t>(*b, "step", "\"bug\"");
    t.found = std::move(found);
  }
  const json steps = field<json>(j, "steps", "the trace");
  if (!steps.is_array()) throw trace_error("malformed trace: \"steps\" is not an array");
  t.steps.reserve(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    const auto bad = [&] { return trace_error(fmt::format("malformed trace: step {} is not [what, value, point, object]", i)); };
    if (!s.is_array() || s.size() != 4 || !s[0].is_string() || !s[1].is_number_unsigned() ||
        !s[2].is_string() || !s[3].is_number_unsigned())
      throw bad();
    trace_step step;
    const std::string what = s[0].get<std::string>();
    if (what == "run") step.kind = step_kind::schedule;
    else if (what == "bool") step.kind = step_kind::choose_bool;
    else if (what == "int") step.kind = step_kind::choose_int;
    else throw bad();
    step.value = s[1].get<std::uint64_t>();
    const auto point = detail::parse_point_kind(s[2].get<std::string>());
    if (!point) throw trace_error(fmt::format("malformed trace: step {} has an unknown point kind", i));
    step.point = *point;
    step.object = s[3].get<object_id>();
    t.steps.push_back(step);
  }
  return t;
}

trace load_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw trace_error(fmt::format("cannot read trace file '{}': it is a directory", path));
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw trace_error(fmt::format("cannot read trace file '{}'{}", path,
                                  errno != 0 ? std::string(": ") + std::strerror(errno) : std::string()));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw trace_error(fmt::format("trace file '{}' is empty", path));
  try {
    return text[first] == '{' ? trace_from_json(text) : trace_from_compact(text);
  } catch (const trace_error& e) {
    throw trace_error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace heddle
