// Every program of tests/pushbutton under control, in process: a program
// whose first line says "// expect: <bug kind> <message substring>" must be
// found within 10,000 iterations with that kind and message, and its trace
// must replay to the same bug; a fixed twin must pass 1,000 iterations. The
// fork server's harness runs the same programs as processes.
//
// The test writes the trace it replays itself, to a file named after its
// process: a HEDDLE_OUT in the environment (which overrides options::out)
// cannot take the trace away, and no file is shared with another process
// running the same test (the fibers and threads runs of rt_tests, other
// build trees).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pushbutton_programs.hpp"
#include "rt/pthread_runtime.hpp"
#include "rt_test_support.hpp"

namespace {

using heddle::rt_test::pushbutton_program;

struct expectation {
  heddle::bug_kind kind;
  std::string message;
};

std::optional<expectation> expectation_of(const pushbutton_program& p) {
  std::ifstream in(p.source);
  std::string line;
  std::getline(in, line);
  const std::string tag = "// expect: ";
  if (line.rfind(tag, 0) != 0) return std::nullopt;
  line.erase(0, tag.size());
  const auto space = line.find(' ');
  const auto kind = heddle::parse_bug_kind(line.substr(0, space));
  if (!kind) throw std::runtime_error(p.source + ": unknown bug kind in '" + line + "'");
  return expectation{*kind, space == std::string::npos ? "" : line.substr(space + 1)};
}

// The program's main as an iteration's body: a non-zero exit status is a bug.
std::function<void()> body_of(const pushbutton_program& p) {
  return [&p] {
    heddle::rt::run_main_thread([&p] {
      if (const int status = p.main(); status != 0)
        heddle::assertion_failed("exit status " + std::to_string(status));
    });
  };
}

// The programs print; their output would drown the test's.
class quiet_stdout {
 public:
  quiet_stdout() : saved_(dup(1)) {
    std::fflush(stdout);
    std::FILE* null = std::fopen("/dev/null", "w");
    dup2(fileno(null), 1);
    std::fclose(null);
  }
  ~quiet_stdout() {
    std::fflush(stdout);
    dup2(saved_, 1);
    close(saved_);
  }
  quiet_stdout(const quiet_stdout&) = delete;
  quiet_stdout& operator=(const quiet_stdout&) = delete;

 private:
  int saved_;
};

class Pushbutton : public testing::TestWithParam<pushbutton_program> {};

TEST_P(Pushbutton, BuggyIsFoundAndReplaysFixedPasses) {
  const pushbutton_program& p = GetParam();
  const auto expected = expectation_of(p);
  const bool fixed = p.name.ends_with("_fixed");
  ASSERT_EQ(expected.has_value(), !fixed) << p.source << ": a buggy program starts with '// expect:', a fixed one does not";
  heddle::options o;
  o.iterations = fixed ? 1000 : 10000;
  o.print_report = false;
  o.out = "";
  heddle::result r;
  {
    quiet_stdout quiet;
    r = heddle::explore(o, body_of(p));
  }
  if (fixed) {
    EXPECT_TRUE(r) << r.report;
    return;
  }
  heddle::rt_test::expect_bug(r, expected->kind, expected->message);
  ASSERT_FALSE(r.minimized_trace.steps.empty());
  const auto trace_file = std::filesystem::temp_directory_path() /
                          ("heddle-pushbutton-" + p.name + "-" + std::to_string(::getpid()) + ".json");
  std::ofstream(trace_file) << heddle::to_json(r.minimized_trace);
  for (int i = 0; i < 3; ++i) {
    heddle::options replay = o;
    replay.replay = trace_file.string();
    heddle::result again;
    {
      quiet_stdout quiet;
      again = heddle::explore(replay, body_of(p));
    }
    ASSERT_TRUE(again.bug) << "replay " << i << " of " << replay.replay;
    EXPECT_EQ(again.bug->kind, r.bug->kind);
    EXPECT_EQ(again.bug->message, r.bug->message);
  }
  std::filesystem::remove(trace_file);
}

INSTANTIATE_TEST_SUITE_P(Programs, Pushbutton, testing::ValuesIn(heddle::rt_test::pushbutton_programs()),
                         [](const testing::TestParamInfo<pushbutton_program>& p) { return p.param.name; });

}  // namespace
