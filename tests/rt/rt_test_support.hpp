// What the rt tests share: running a program under control with quiet
// options, and the assertion hook the C programs call.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "heddle/explore.hpp"

namespace heddle::rt_test {

// Explores `body` for `iterations` iterations with `strategy`, without
// printing or writing traces; the backend is `backend` ("" for the default).
inline result explore_quietly(std::function<void()> body, std::uint64_t iterations = 200,
                              std::string strategy = "random") {
  options o;
  o.iterations = iterations;
  o.strategy = std::move(strategy);
  o.print_report = false;
  o.out = "";
  return explore(o, std::move(body));
}

// Expects `r` to have found a bug of `kind` whose message contains `message`.
inline void expect_bug(const result& r, bug_kind kind, std::string_view message) {
  ASSERT_TRUE(r.bug) << "expected a " << to_string(kind) << " bug: " << message;
  EXPECT_EQ(r.bug->kind, kind) << r.bug->message;
  EXPECT_NE(r.bug->message.find(message), std::string::npos) << r.bug->message;
}

}  // namespace heddle::rt_test
