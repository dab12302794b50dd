// What the actor and monitor tests share: quiet options, a scratch
// directory, and the check that a found bug replays 100 times out of 100.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "heddle/explore.hpp"

namespace actor_tests {

inline heddle::options quiet(heddle::options o = {}) {
  o.print_report = false;
  o.out.clear();
  return o;
}

inline std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("heddle-actors-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Finds a bug with `o` (which must find one), then replays its saved trace
// 100 times: each replay must end with the same kind, message and step.
inline heddle::result found_and_replayed(heddle::options o, const std::function<void()>& body, const std::string& test) {
  const auto dir = scratch(test);
  o.print_report = false;
  o.out = dir.string();
  heddle::result found = heddle::explore(o, body, {test, ""});
  if (!found.bug) {
    ADD_FAILURE() << "no bug found: " << found.verdict();
    return found;
  }
  EXPECT_FALSE(found.trace_file.empty());
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const heddle::result again = heddle::explore(quiet({.replay = found.trace_file}), body, {test, ""});
    same += again.bug && !again.divergence && again.bug->kind == found.bug->kind &&
            again.bug->message == found.bug->message;
  }
  EXPECT_EQ(same, 100) << "replays that reproduced " << found.bug->message;
  std::filesystem::remove_all(dir);
  return found;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace actor_tests
