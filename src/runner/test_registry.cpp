// The registry behind HEDDLE_TEST and the --heddle_* flags of test binaries.
//
// Protocol with the `heddle` CLI: the CLI passes --heddle_* option flags,
// --heddle_result_file=PATH (one JSON object per explored test is appended,
// runner/summary_json.hpp), and --heddle_list (print registered tests as
// "suite.name<TAB>file:line").
//
// GoogleTest's sharding protocol (CTest, Bazel, Kubernetes indexed jobs):
// when GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX are set, heddle takes them as
// --heddle_shard=INDEX/TOTAL (unless a flag or HEDDLE_SHARD says otherwise),
// touches GTEST_SHARD_STATUS_FILE, and removes the three variables before
// GoogleTest sees them: every shard runs every test, each on its share of the
// iteration indices, instead of GoogleTest splitting the list of tests.
#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "heddle/test.hpp"
#include "runner/overrides.hpp"
#include "runner/summary_json.hpp"
#include "runner/test_registry.hpp"
#include "strategies/strategies.hpp"

namespace heddle {
namespace detail {
namespace {

std::vector<registered_test>& tests() {
  static std::vector<registered_test> all;
  return all;
}

std::string& result_file() {
  static std::string path;
  return path;
}

std::string self_path() {
  char buffer[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string{};
}

void append_result(const nlohmann::json& record) {
  if (result_file().empty()) return;
  std::ofstream out(result_file(), std::ios::app);
  out << record.dump() << "\n";
}

}  // namespace

bool register_test(const registered_test& test) {
  tests().push_back(test);
  return true;
}

bool register_listed_test(const char* suite, const char* name, const char* file, int line) {
  tests().push_back({suite, name, file, line, {}, nullptr});
  return true;
}

const std::string& test_result_file() { return result_file(); }
void append_test_result(const nlohmann::json& record) { append_result(record); }
std::string test_binary_path() { return self_path(); }

void run_registered_test(const char* suite, const char* name) {
  const std::string id = fmt::format("{}.{}", suite, name);
  const registered_test* test = nullptr;
  for (const registered_test& t : tests())
    if (std::strcmp(t.suite, suite) == 0 && std::strcmp(t.name, name) == 0) test = &t;
  if (test == nullptr || test->body == nullptr) {
    ADD_FAILURE() << "heddle: no registered test " << id;
    return;
  }
  nlohmann::json record = {{"test", id}};
  try {
    const options opts = with_overrides(test->opts);
    const result r = explore(test->opts, test->body, {id, self_path()});
    record = test_record(id, opts, r);
    if (r.bug) {
      for (const bug_group& g : r.bugs)
        ADD_FAILURE_AT(test->file, test->line) << "heddle found a bug: " << to_string(g.bug.kind) << ": "
                                               << g.bug.message << (g.count > 1 ? fmt::format(" ({} iterations)", g.count) : "");
    } else if (r.divergence) {
      ADD_FAILURE_AT(test->file, test->line) << "heddle: " << *r.divergence;
    }
  } catch (const usage_error& e) {
    record["status"] = "error";
    record["message"] = e.what();
    ADD_FAILURE_AT(test->file, test->line) << "heddle: " << e.what();
  }
  append_result(record);
  // An earlier test took a Ctrl-C or SIGTERM: this one ran nothing.
  if (record.value("status", "") == "not_run") GTEST_SKIP() << "heddle: " << record.value("verdict", "not run");
}

}  // namespace detail

namespace {

void take_gtest_sharding() {
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  if (total != nullptr && index != nullptr) {
    if (!detail::flag_overrides().contains("shard") && std::getenv("HEDDLE_SHARD") == nullptr)
      detail::flag_overrides()["shard"] = fmt::format("{}/{}", index, total);
  }
  if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE"); status != nullptr) {
    // The protocol's handshake: the runner sees that this binary shards.
    std::ofstream touch(status, std::ios::app);
  }
  ::unsetenv("GTEST_TOTAL_SHARDS");
  ::unsetenv("GTEST_SHARD_INDEX");
  ::unsetenv("GTEST_SHARD_STATUS_FILE");
}

}  // namespace

void init(int* argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg = argv[i];
    if (!arg.starts_with("--heddle_")) {
      argv[kept++] = argv[i];
      continue;
    }
    arg.remove_prefix(std::strlen("--heddle_"));
    const auto eq = arg.find('=');
    const std::string name(arg.substr(0, eq));
    const std::string value(eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1));
    if (name == "result_file") {
      detail::result_file() = value;
      // Run by `heddle test`: when it dies, even of SIGKILL, this binary stops
      // as on a SIGTERM (runner/interrupt.hpp) instead of running on alone.
      const pid_t starter = ::getppid();
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != starter) std::raise(SIGTERM);  // it died before prctl
    } else if (name == "list") {
      detail::flag_overrides()["list"] = "1";
    } else if (detail::is_option_name(name)) {
      detail::flag_overrides()[name] = value;
    } else {
      std::fprintf(stderr, "heddle: unknown flag --heddle_%s\n", name.c_str());
      std::exit(2);
    }
  }
  argv[kept] = nullptr;
  *argc = kept;
  take_gtest_sharding();
  const bool listing = detail::flag_overrides().erase("list") > 0;
  try {
    const options checked = detail::with_overrides({});
    if (checked.replay.empty()) (void)detail::make_strategy(checked.strategy);
    else (void)load_trace(checked.replay);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heddle: %s\n", e.what());
    std::exit(2);
  }
  if (listing) {
    for (const detail::registered_test& t : detail::tests())
      std::printf("%s.%s\t%s:%d\n", t.suite, t.name, t.file, t.line);
    std::exit(0);
  }
  ::testing::InitGoogleTest(argc, argv);
}

int run_all_tests(int argc, char** argv) {
  init(&argc, argv);
  return RUN_ALL_TESTS();
}

}  // namespace heddle
