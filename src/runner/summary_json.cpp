#include "runner/summary_json.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "runner/statistics.hpp"
#include "runner/verdict.hpp"

namespace heddle::detail {
namespace {

using nlohmann::json;

std::vector<std::string> hex_all(const std::vector<std::uint64_t>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  for (std::uint64_t v : values) out.push_back(hex(v));
  return out;
}

std::vector<std::uint64_t> unhex_all(const json& j) {
  std::vector<std::uint64_t> out;
  if (!j.is_array()) return out;
  for (const json& v : j) out.push_back(std::stoull(v.get<std::string>(), nullptr, 16));
  std::sort(out.begin(), out.end());
  return out;
}

std::string status_of(const result& r) {
  if (r.bug) return r.bug->kind == bug_kind::crash || r.bug->kind == bug_kind::stack_overflow ? "crash" : "bug";
  if (r.divergence) return "diverged";
  if (r.interrupted && r.stats.iterations == 0) return "not_run";
  return "passed";
}

}  // namespace

std::string hex(std::uint64_t v) { return fmt::format("{:016x}", v); }

json stats_to_json(const statistics& s) {
  const double seconds = std::chrono::duration<double>(s.elapsed).count();
  return {{"iterations", s.iterations},
          {"seconds", seconds},
          {"iterations_per_second", s.iterations_per_second()},
          {"steps_total", s.steps_total},
          {"steps_min", s.steps_min},
          {"steps_mean", s.mean_steps()},
          {"steps_max", s.steps_max},
          {"max_enabled", s.max_enabled},
          {"max_steps_hits", s.max_steps_hits},
          {"max_steps_share", s.iterations > 0 ? static_cast<double>(s.max_steps_hits) / static_cast<double>(s.iterations) : 0.0},
          {"buggy_iterations", s.buggy_iterations},
          {"distinct_schedules", s.distinct_schedules},
          {"distinct_end_states", s.distinct_end_states},
          {"exhausted", s.exhausted},
          {"schedules", s.schedules},
          {"schedules_are_executions", s.schedules_are_executions},
          {"memory_model", std::string(to_string(s.memory_model))},
          {"weak_order_iterations", s.weak_order_iterations},
          {"plain_unseen_iterations", s.plain_unseen_iterations},
          {"sc_in_run_order_iterations", s.sc_in_run_order_iterations},
          {"bounded_choices", s.bounded_choices},
          {"held_wait_iterations", s.held_wait_iterations},
          {"max_steps", s.max_steps},
          {"workers", s.workers},
          {"workers_replaced", s.workers_replaced},
          {"races_suppressed", s.races_suppressed},
          {"schedule_hashes", hex_all(s.schedule_hashes)},
          {"end_state_hashes", hex_all(s.end_state_hashes)}};
}

statistics stats_from_json(const json& j) {
  statistics s;
  s.iterations = j.value("iterations", std::uint64_t{0});
  s.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(j.value("seconds", 0.0)));
  s.steps_total = j.value("steps_total", std::uint64_t{0});
  s.steps_min = j.value("steps_min", std::uint64_t{0});
  s.steps_max = j.value("steps_max", std::uint64_t{0});
  s.max_enabled = j.value("max_enabled", std::uint64_t{0});
  s.max_steps_hits = j.value("max_steps_hits", std::uint64_t{0});
  s.buggy_iterations = j.value("buggy_iterations", std::uint64_t{0});
  s.distinct_schedules = j.value("distinct_schedules", std::uint64_t{0});
  s.distinct_end_states = j.value("distinct_end_states", std::uint64_t{0});
  s.exhausted = j.value("exhausted", false);
  s.schedules = j.value("schedules", std::uint64_t{0});
  s.schedules_are_executions = j.value("schedules_are_executions", false);
  s.memory_model = j.value("memory_model", std::string{"sc"}) == "rc11" ? memory_model::rc11 : memory_model::sc;
  s.weak_order_iterations = j.value("weak_order_iterations", std::uint64_t{0});
  s.plain_unseen_iterations = j.value("plain_unseen_iterations", std::uint64_t{0});
  s.sc_in_run_order_iterations = j.value("sc_in_run_order_iterations", std::uint64_t{0});
  s.bounded_choices = j.value("bounded_choices", std::uint64_t{0});
  s.held_wait_iterations = j.value("held_wait_iterations", std::uint64_t{0});
  s.max_steps = j.value("max_steps", std::uint64_t{0});
  s.workers = j.value("workers", 0u);
  s.workers_replaced = j.value("workers_replaced", std::uint64_t{0});
  s.races_suppressed = j.value("races_suppressed", std::uint64_t{0});
  if (const auto h = j.find("schedule_hashes"); h != j.end()) s.schedule_hashes = unhex_all(*h);
  if (const auto h = j.find("end_state_hashes"); h != j.end()) s.end_state_hashes = unhex_all(*h);
  return s;
}

json bug_group_to_json(const bug_group& g) {
  return {{"signature", g.signature},
          {"kind", to_string(g.bug.kind)},
          {"message", g.bug.message},
          {"operation", g.bug.operation},
          {"operation_name", g.bug.operation_name},
          {"file", g.bug.where.file},
          {"line", g.bug.where.line},
          {"step", g.bug.step},
          {"count", g.count},
          {"first_iteration", g.first_iteration},
          {"trace", to_compact(g.trace)},
          {"minimized_trace", to_compact(g.minimized_trace)},
          {"trace_steps", g.trace.steps.size()},
          {"minimized_trace_steps", g.minimized_trace.steps.size()},
          {"trace_file", g.trace_file},
          {"report", g.report.str()}};
}

json test_record(const std::string& test, const options& o, const result& r) {
  json record = {{"test", test},
                 {"status", status_of(r)},
                 {"stats", stats_to_json(r.stats)},
                 {"shard", {{"index", o.shard_index}, {"count", o.shard_count}}},
                 {"interrupted", r.interrupted},
                 {"verdict", r.verdict()},
                 {"verified", status_of(r) == "passed" && verified(r.stats)},
                 {"caveats", r.stats.caveats()}};
  json groups = json::array();
  for (const bug_group& g : r.bugs) groups.push_back(bug_group_to_json(g));
  record["bugs"] = std::move(groups);
  if (r.bug) {
    // The first bug, where readers of schema 1 find it.
    const bug_group& g = r.bugs.front();
    record["bug"] = {{"kind", to_string(g.bug.kind)}, {"message", g.bug.message}, {"operation", g.bug.operation},
                     {"operation_name", g.bug.operation_name}, {"file", g.bug.where.file}, {"line", g.bug.where.line},
                     {"step", g.bug.step}};
    record["trace_file"] = g.trace_file;
    record["iteration"] = g.first_iteration;
    record["report"] = g.report.str();
  }
  if (r.divergence) record["message"] = *r.divergence;
  if (o.record_iterations) {
    json its = json::array();
    for (const iteration_record& i : r.iterations) its.push_back({i.index, hex(i.schedule_hash), i.steps});
    record["iterations"] = std::move(its);
  }
  return record;
}

json merge_summaries(const std::vector<json>& summaries, const std::vector<std::string>& names) {
  json merged = {{"schema", "heddle-summary"}, {"schema_version", summary_schema_version}};
  std::map<std::string, json> tests;  // by test id, in first-seen order below
  std::vector<std::string> order;
  json shards = json::array();
  std::string program;
  for (std::size_t k = 0; k < summaries.size(); ++k) {
    const json& s = summaries[k];
    if (!s.is_object() || !s.contains("tests") || !s["tests"].is_array())
      throw usage_error(fmt::format("'{}' is not a heddle JSON summary (no \"tests\" array)", names[k]));
    if (const int v = s.value("schema_version", 0); v != summary_schema_version)
      throw usage_error(fmt::format("'{}' has schema version {}, this heddle reads version {}", names[k], v,
                                    summary_schema_version));
    if (program.empty()) program = s.value("program", "");
    const json run = s.value("run", json::object());
    shards.push_back({{"file", names[k]}, {"shard", run.value("shard", json::object())}});
    for (const json& t : s["tests"]) {
      const std::string id = t.value("test", "");
      auto [it, fresh] = tests.try_emplace(id, t);
      if (fresh) {
        order.push_back(id);
        continue;
      }
      json& m = it->second;
      statistics total = stats_from_json(m.value("stats", json::object()));
      merge(total, stats_from_json(t.value("stats", json::object())));
      m["stats"] = stats_to_json(total);
      m["caveats"] = total.caveats();
      if (m.value("status", "") == "passed") m["verdict"] = pass_verdict(total);
      // Bugs: one group per signature; counts add up; the earliest iteration's traces win.
      json groups = m.value("bugs", json::array());
      for (const json& g : t.value("bugs", json::array())) {
        auto same = std::find_if(groups.begin(), groups.end(),
                                 [&](const json& h) { return h.value("signature", "") == g.value("signature", ""); });
        if (same == groups.end()) {
          groups.push_back(g);
        } else {
          const std::uint64_t count = same->value("count", std::uint64_t{0}) + g.value("count", std::uint64_t{0});
          if (g.value("first_iteration", std::uint64_t{0}) < same->value("first_iteration", std::uint64_t{0})) *same = g;
          (*same)["count"] = count;
        }
      }
      m["bugs"] = groups;
      // Status: the worst of the shards.
      static const std::vector<std::string> rank = {"not_run", "passed", "diverged", "error", "bug", "crash"};
      const auto pos = [&](const std::string& st) { return std::find(rank.begin(), rank.end(), st) - rank.begin(); };
      // Of two shards with a bug, the earlier iteration's is the run's first bug.
      const bool earlier = pos(t.value("status", "")) == pos(m.value("status", "")) && t.contains("iteration") &&
                           m.contains("iteration") &&
                           t.value("iteration", std::uint64_t{0}) < m.value("iteration", std::uint64_t{0});
      if (pos(t.value("status", "")) > pos(m.value("status", "")) || earlier) {
        for (const char* field : {"status", "verdict", "bug", "trace_file", "replay", "iteration", "report", "message"})
          if (t.contains(field)) m[field] = t[field];
      }
      m["verified"] = m.value("status", "") == "passed" && verified(total);
      if (t.contains("iterations")) {
        json its = m.value("iterations", json::array());
        for (const json& i : t["iterations"]) its.push_back(i);
        std::sort(its.begin(), its.end());
        m["iterations"] = its;
      }
    }
  }
  json all = json::array();
  bool bug = false, error = false;
  for (const std::string& id : order) {
    const std::string st = tests[id].value("status", "");
    bug = bug || st == "bug" || st == "crash";
    error = error || st == "error" || st == "diverged";
    all.push_back(tests[id]);
  }
  merged["program"] = program;
  merged["status"] = bug ? "bug" : error ? "error" : "passed";
  merged["exit_code"] = bug ? 1 : error ? 2 : 0;
  merged["shards"] = shards;
  merged["tests"] = all;
  return merged;
}

}  // namespace heddle::detail
