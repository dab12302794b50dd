// `heddle merge a.json b.json ...`: combines the JSON summaries of the shards
// of one run (`heddle test --shard I/N --json-out FILE` on each machine) into
// the summary of the whole run.
//
// Contract: every input must be a heddle JSON summary of the same schema
// version; an unreadable or foreign file is one line and exit 2. Counts add
// up, distinct schedules and end states are unions of the shards' hash sets,
// bugs are grouped by signature across shards (counts added, the earliest
// iteration's trace kept). Exit status as `heddle test`: 1 when any shard
// found a bug.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "heddle/explore.hpp"
#include "runner/summary_json.hpp"
#include "summary.hpp"

namespace heddle::cli {

int run_merge(const merge_arguments& args) {
  using nlohmann::json;
  std::vector<json> summaries;
  for (const std::string& path : args.inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error(fmt::format("cannot read '{}'", path));
    std::stringstream text;
    text << in.rdbuf();
    json summary = json::parse(text.str(), nullptr, false);
    if (summary.is_discarded()) throw usage_error(fmt::format("'{}' is not JSON", path));
    summaries.push_back(std::move(summary));
  }
  const json merged = detail::merge_summaries(summaries, args.inputs);
  if (args.json_out) write_json_file(*args.json_out, merged);
  const int exit = merged.value("exit_code", 0);
  if (args.format == "json") {
    fmt::print("{}\n", merged.dump(2));
    return exit;
  }
  std::vector<test_outcome> tests;
  for (const json& t : merged["tests"]) {
    test_outcome o;
    o.id = t.value("test", "");
    o.location = t.value("location", "");
    take_record(o, t);
    tests.push_back(std::move(o));
  }
  print_text_summary(tests, fmt::format("{} ({} shard result{} merged)", merged.value("program", std::string("?")),
                                        args.inputs.size(), args.inputs.size() == 1 ? "" : "s"),
                     exit);
  return exit;
}

}  // namespace heddle::cli
