// The JSON form of run results (docs/report-schema.md, schema version 1):
// what a test binary writes per explored test (--heddle_result_file), what
// `heddle test --format json` / `--json-out` print for a whole binary, and
// what `heddle merge` combines.
//
// Contract: test_record() and merge_summaries() keep every field the schema
// documents; merging the summaries of the shards of one run gives the counts
// of the unsharded run: iterations, steps, bugs per signature, distinct
// schedules and end states (hash sets are united, not added).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"

namespace heddle::detail {

inline constexpr int summary_schema_version = 1;

nlohmann::json stats_to_json(const statistics& s);
statistics stats_from_json(const nlohmann::json& j);

nlohmann::json bug_group_to_json(const bug_group& g);

// One explored test: status, stats, bugs grouped by signature, and the
// iterations when they were recorded.
nlohmann::json test_record(const std::string& test, const options& o, const result& r);

// Combines summaries (each as `heddle test --format json` prints it) into
// one; throws usage_error naming the file when they do not fit together.
nlohmann::json merge_summaries(const std::vector<nlohmann::json>& summaries, const std::vector<std::string>& names);

std::string hex(std::uint64_t v);

}  // namespace heddle::detail
