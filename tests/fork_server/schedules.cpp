// The fork server decides as explore() does in process (tests/fork_server).
//
//   fork_server_schedules                      the program: one run of its main
//   fork_server_schedules compare S N short|long
//       runs N iterations of the program under strategy S in this process
//       (explore(), OS-thread backend) and through the fork server (itself,
//       with HEDDLE_RUN=1), and compares the two sequences of schedules
//       (index, schedule hash, steps). Exit 0 when they are equal and the
//       run saw more than one schedule (a test that can fail).
//   fork_server_schedules crash <out-dir>
//       one iteration of "long_abort" (the long program, then abort()) through
//       the fork server: the child dies after more decisions than the fork
//       channel's log holds, so after hand-offs; the bug must still come with
//       every step in its trace, and the trace must replay to the same abort.
//   fork_server_schedules overflow main|thread <out-dir>
//       one iteration of "overflow_main" or "overflow_thread" (main, or a
//       thread it starts, recursing without end) through the fork server: a
//       stack overflow of the operation, on the child's initial thread (main)
//       as on a pool thread, whose trace replays to the same bug.
//   fork_server_schedules unload <out-dir>
//       three iterations of "unload" (main loads libz with dlopen; the
//       program's destructor unloads it and writes a line to a file): the
//       child's exit runs the program's destructor each time, and does not
//       call the destructors of the library the destructor unloaded.
//
// The program: three threads and main on a pthread mutex and a C11 atomic,
// with no heddle header. In process each iteration's body is what the fork
// server's child runs: main as the main thread, then exit's scheduling point.
#include <dlfcn.h>
#include <pthread.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "heddle/explore.hpp"
#include "heddle/model.hpp"
#include "runner/statistics.hpp"

namespace heddle::rt {
void run_main_thread(const std::function<void()>& body);
}

namespace {

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int counter = 0;
std::atomic<int> flag{0};
int rounds = 3;

void* increment(void*) {
  for (int i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
  }
  return nullptr;
}

void* publish(void*) {
  flag.store(1);
  return nullptr;
}

int program_main() {
  counter = 0;
  flag.store(0);
  pthread_t a, b, c;
  pthread_create(&a, nullptr, increment, nullptr);
  pthread_create(&b, nullptr, increment, nullptr);
  pthread_create(&c, nullptr, publish, nullptr);
  (void)flag.load();
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  pthread_join(c, nullptr);
  return counter == 2 * rounds ? 0 : 1;
}

// Recursion without end (the bound is never reached), each frame holding a
// kilobyte, so the stack overflows within a few thousand calls.
volatile int recursion_bound = 1 << 30;

int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  if (depth >= recursion_bound) return frame[0];
  return recurse(depth + 1) + frame[0];
}

void* recurse_in_thread(void*) { return reinterpret_cast<void*>(static_cast<std::intptr_t>(recurse(0))); }

int overflow_main(bool in_thread) {
  if (!in_thread) return recurse(0);
  pthread_t t;
  pthread_create(&t, nullptr, recurse_in_thread, nullptr);
  pthread_join(t, nullptr);
  return 0;
}

// "unload": a library loaded by main and unloaded by the program's destructor.
void* loaded_library = nullptr;

__attribute__((destructor)) void unload_library() {
  if (loaded_library == nullptr) return;
  if (::dlclose(loaded_library) != 0) std::abort();
  if (const char* marker = std::getenv("FORK_SERVER_TEST_MARKER"); marker != nullptr) {
    if (FILE* f = std::fopen(marker, "a"); f != nullptr) {
      std::fputs("unloaded\n", f);
      std::fclose(f);
    }
  }
}

struct schedule {
  std::uint64_t index = 0;
  std::string hash;
  std::uint64_t steps = 0;
  bool operator==(const schedule&) const = default;
};

std::vector<schedule> in_process(const std::string& strategy, std::uint64_t iterations, bool& exhausted) {
  heddle::options o;
  o.iterations = iterations;
  o.strategy = strategy;
  o.out = "";
  o.progress = false;
  o.record_iterations = true;
  o.backend = "threads";
  const heddle::result r = heddle::explore(o, [] {
    heddle::rt::run_main_thread([] {
      if (program_main() != 0) heddle::assertion_failed("the counter lost an update");
    });
    // The fork server's child: exit() is a scheduling point.
    heddle::scheduling_point(heddle::point_kind::yield, std::source_location{});
  });
  if (r.bug) throw std::runtime_error("in process: the program failed: " + r.bug->message);
  exhausted = r.stats.exhausted;
  std::vector<schedule> out;
  for (const heddle::iteration_record& i : r.iterations) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(i.schedule_hash));
    out.push_back({i.index, hash, i.steps});
  }
  return out;
}

std::vector<schedule> through_fork_server(const char* self, const std::string& strategy, std::uint64_t iterations,
                                          const char* program, bool& exhausted) {
  const std::string command = "env HEDDLE_RUN=1 HEDDLE_RUN_FORMAT=json HEDDLE_RECORD_ITERATIONS=1 HEDDLE_OUT= "
                              "HEDDLE_STRATEGY='" + strategy + "' HEDDLE_ITERATIONS=" + std::to_string(iterations) +
                              " '" + self + "' " + program;
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
  const int status = ::pclose(out);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (status != 0 || !j.is_object() || j.value("status", "") != "passed")
    throw std::runtime_error("the fork server run failed (status " + std::to_string(status) + "): " + text);
  exhausted = j.value("exhausted", false);
  std::vector<schedule> schedules;
  for (const auto& s : j.at("schedules")) schedules.push_back({s.at(0), s.at(1), s.at(2)});
  return schedules;
}

int compare(const char* self, const std::string& strategy, std::uint64_t iterations, const char* program) {
  bool exhausted_here = false, exhausted_forked = false;
  const std::vector<schedule> here = in_process(strategy, iterations, exhausted_here);
  const std::vector<schedule> forked = through_fork_server(self, strategy, iterations, program, exhausted_forked);
  for (std::size_t i = 0; i < std::min(here.size(), forked.size()); ++i) {
    if (here[i] == forked[i]) continue;
    std::fprintf(stderr,
                 "%s: schedule %zu differs: in process iteration %llu, %s, %llu steps; fork server iteration %llu, "
                 "%s, %llu steps\n",
                 strategy.c_str(), i, static_cast<unsigned long long>(here[i].index), here[i].hash.c_str(),
                 static_cast<unsigned long long>(here[i].steps), static_cast<unsigned long long>(forked[i].index),
                 forked[i].hash.c_str(), static_cast<unsigned long long>(forked[i].steps));
    return 1;
  }
  if (here.size() != forked.size() || exhausted_here != exhausted_forked) {
    std::fprintf(stderr, "%s: %zu iterations in process (exhausted: %d), %zu through the fork server (exhausted: %d)\n",
                 strategy.c_str(), here.size(), exhausted_here, forked.size(), exhausted_forked);
    return 1;
  }
  std::vector<std::string> distinct;
  for (const schedule& s : here) distinct.push_back(s.hash);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2) {
    std::fprintf(stderr, "%s: only %zu distinct schedule(s) in %zu iterations: the comparison shows nothing\n",
                 strategy.c_str(), distinct.size(), here.size());
    return 1;
  }
  std::printf("%s: %zu identical schedules (%zu distinct, %llu steps in the first)%s\n", strategy.c_str(),
              here.size(), distinct.size(), static_cast<unsigned long long>(here.front().steps),
              exhausted_here ? ", search exhausted in both" : "");
  return 0;
}

nlohmann::json run_fork_server(const std::string& variables, const char* self, const char* program) {
  const std::string command = "env HEDDLE_RUN=1 HEDDLE_RUN_FORMAT=json " + variables + " '" + self + "' " + program +
                              " 2>/dev/null";
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
  (void)::pclose(out);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw std::runtime_error("no JSON summary from: " + command + "\n" + text);
  return j;
}

int crash(const char* self, const std::string& out_dir) {
  const nlohmann::json found = run_fork_server(
      "HEDDLE_ITERATIONS=1 HEDDLE_STRATEGY=random HEDDLE_OUT='" + out_dir + "'", self, "long_abort");
  const std::string kind = found.contains("bug") ? found["bug"].value("kind", "") : "";
  const std::string message = found.contains("bug") ? found["bug"].value("message", "") : "";
  const std::uint64_t step = found.contains("bug") ? found["bug"].value("step", std::uint64_t{0}) : 0;
  if (found.value("status", "") != "bug" || kind != "assertion" ||
      message.find("the program aborted (SIGABRT) in operation 1 (main)") == std::string::npos) {
    std::fprintf(stderr, "expected an abort in main, got: %s\n", found.dump().c_str());
    return 1;
  }
  if (step <= 4096) {
    std::fprintf(stderr, "the abort came at step %llu, before the log was full: the test shows nothing\n",
                 static_cast<unsigned long long>(step));
    return 1;
  }
  const std::string trace = found.value("trace_file", "");
  const nlohmann::json replayed =
      run_fork_server("HEDDLE_REPLAY='" + trace + "' HEDDLE_REPLAY_REPEAT=2 HEDDLE_OUT=", self, "long_abort");
  if (replayed.value("status", "") != "bug" || replayed.value("reproduced", 0) != 2 ||
      replayed["bug"].value("step", std::uint64_t{0}) != step) {
    std::fprintf(stderr, "the trace of the abort at step %llu did not replay it twice: %s\n",
                 static_cast<unsigned long long>(step), replayed.dump().c_str());
    return 1;
  }
  std::printf("abort at step %llu found, traced and replayed twice\n", static_cast<unsigned long long>(step));
  return 0;
}

// A stack overflow in `where` ("main" or "thread") is found as one, named in
// the right operation, and replays.
int overflow(const char* self, const std::string& where, const std::string& out_dir) {
  const std::string program = "overflow_" + where;
  const std::string operation = where == "main" ? "operation 1 (main)" : "operation 2";
  const nlohmann::json found =
      run_fork_server("HEDDLE_ITERATIONS=1 HEDDLE_STRATEGY=random HEDDLE_OUT='" + out_dir + "'", self, program.c_str());
  const std::string kind = found.contains("bug") ? found["bug"].value("kind", "") : "";
  const std::string message = found.contains("bug") ? found["bug"].value("message", "") : "";
  if (found.value("status", "") != "bug" || kind != "stack_overflow" ||
      message.find("stack overflow in " + operation) == std::string::npos) {
    std::fprintf(stderr, "expected a stack overflow in %s, got: %s\n", operation.c_str(), found.dump().c_str());
    return 1;
  }
  const std::string trace = found.value("trace_file", "");
  const nlohmann::json replayed =
      run_fork_server("HEDDLE_REPLAY='" + trace + "' HEDDLE_REPLAY_REPEAT=2 HEDDLE_OUT=", self, program.c_str());
  if (replayed.value("status", "") != "bug" || replayed.value("reproduced", 0) != 2 ||
      replayed["bug"].value("kind", "") != "stack_overflow") {
    std::fprintf(stderr, "the trace of the stack overflow did not replay it twice: %s\n", replayed.dump().c_str());
    return 1;
  }
  std::printf("%s, traced and replayed twice\n", message.c_str());
  return 0;
}

// The program's destructor ran in each of three children (its marker lines)
// and none of them crashed on the library it unloaded.
int unload(const char* self, const std::string& out_dir) {
  std::filesystem::create_directories(out_dir);
  const std::string marker = out_dir + "/unloaded";
  std::filesystem::remove(marker);
  const nlohmann::json j = run_fork_server("HEDDLE_ITERATIONS=3 HEDDLE_STRATEGY=random HEDDLE_OUT= "
                                           "FORK_SERVER_TEST_MARKER='" + marker + "'",
                                           self, "unload");
  std::ifstream in(marker);
  int lines = 0;
  for (std::string line; std::getline(in, line);) lines += line == "unloaded" ? 1 : 0;
  if (j.value("status", "") != "passed" || lines != 3) {
    std::fprintf(stderr, "expected 3 clean iterations, each unloading the library in the program's destructor; got "
                         "%d marker line(s) and %s\n", lines, j.dump().c_str());
    return 1;
  }
  std::printf("3 iterations, each child ran the program's destructor, which unloaded libz\n");
  return 0;
}

// A check's status; an exception (a run that could not be made) fails it.
int checked(const std::function<int()>& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  if (argc == 3 && mode == "unload") return checked([&] { return unload(argv[0], argv[2]); });
  if (argc == 4 && mode == "overflow" && (std::string_view(argv[2]) == "main" || std::string_view(argv[2]) == "thread"))
    return checked([&] { return overflow(argv[0], argv[2], argv[3]); });
  if (argc == 3 && mode == "crash") return checked([&] { return crash(argv[0], argv[2]); });
  const bool comparing = argc == 5 && std::string_view(argv[1]) == "compare";
  const std::string_view program = comparing ? argv[4] : argc > 1 ? argv[1] : "short";
  if (program == "overflow_main" || program == "overflow_thread") return overflow_main(program == "overflow_thread");
  if (program == "unload") {
    loaded_library = ::dlopen("libz.so.1", RTLD_NOW);
    return loaded_library != nullptr ? 0 : 4;
  }
  if (program != "short" && program != "long" && program != "long_abort") {
    std::fprintf(stderr, "usage: fork_server_schedules [compare <strategy> <iterations>] short|long | crash <dir> | "
                         "overflow main|thread <dir> | unload <dir>\n");
    return 2;
  }
  rounds = program == "short" ? 3 : 1500;
  if (program == "long_abort") {
    (void)program_main();
    std::abort();
  }
  if (!comparing) return program_main();
  return checked([&] { return compare(argv[0], argv[2], std::strtoull(argv[3], nullptr, 10), argv[4]); });
}
