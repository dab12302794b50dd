// The push-button harness (tests/pushbutton, docs/pushbutton.md): checks one
// buggy program and its fixed twin through the `heddle` CLI.
//
//   check_program <heddle> <source> <buggy> <fixed> <out-dir> [<backend> | dpor]
//
// The source's first comment lines say what to expect:
//   // expect: <bug kind> <message substring>
//   // heddle: <extra heddle run flags>      (optional; {source_dir} stands
//                                            for the source's directory)
//   // replays: <N>                           (optional, default 100)
//   // sc: passes                             (optional; a weak-memory bug)
// Checks: `heddle run --iterations 10000` finds a bug of that kind whose
// message contains the substring; the fixed twin passes 1,000 iterations (250
// on a named backend);
// the trace replays the same bug N times out of N (one `heddle replay` whose
// fork server repeats the replay, HEDDLE_REPLAY_REPEAT). With a backend, every
// run passes --backend <backend>, the trace must say it ran there (a replay
// runs on the backend of its trace), and it must also replay once on the other
// backend (HEDDLE_BACKEND). With `sc: passes` (a bug only the C++ memory
// model allows, found with `heddle: --memory-model rc11`), the buggy program
// must also pass 1,000 iterations under --memory-model sc, with the caveat
// that weaker orders ran as seq_cst (checked once, by the run without a
// backend: a seed gives the same schedules on both backends, which
// pushbutton.backends_agree.* checks). With `dpor` (a weak-memory program):
// `heddle run --strategy dpor` under its flags finds the bug, the fixed twin
// is verified under RC11 (every execution explored, none cut at
// --max-steps; with wait loops, up to their repeated tries, which the verdict
// must say), and the trace replays once. Exit 0 when all hold.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

struct expectation {
  std::string kind;
  std::string message;
  std::vector<std::string> flags;
  int replays = 100;
  bool passes_under_sc = false;
};

expectation read_expectation(const std::string& source) {
  expectation e;
  std::ifstream in(source);
  for (std::string line; std::getline(in, line) && line.starts_with("//");) {
    std::istringstream words(line.substr(2));
    std::string key;
    words >> key;
    if (key == "expect:") {
      words >> e.kind;
      std::getline(words >> std::ws, e.message);
    } else if (key == "heddle:") {
      const std::string directory = std::filesystem::path(source).parent_path().string();
      for (std::string flag; words >> flag;) {
        if (const auto at = flag.find("{source_dir}"); at != std::string::npos) flag.replace(at, 12, directory);
        e.flags.push_back(flag);
      }
    } else if (key == "replays:") {
      words >> e.replays;
    } else if (key == "sc:") {
      std::string verdict;
      words >> verdict;
      e.passes_under_sc = verdict == "passes";
    }
  }
  return e;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct outcome {
  int status = -1;
  json summary;       // the last JSON line on stdout
  std::string errors;  // stderr: the report
};

outcome run(const std::string& environment, const std::vector<std::string>& argv, const std::string& err_file) {
  std::string command = environment;
  for (const std::string& a : argv) command += " " + quote(a);
  command += " 2>" + quote(err_file);
  outcome o;
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) return o;
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, out) != nullptr) text += buffer;
  const int status = ::pclose(out);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (json j = json::parse(line, nullptr, false); j.is_object()) o.summary = std::move(j);
  std::ifstream err(err_file);
  o.errors.assign(std::istreambuf_iterator<char>(err), {});
  return o;
}

int fail(const std::string& what, const outcome& o) {
  std::fprintf(stderr, "FAILED: %s\nexit status %d, summary %s\n%s\n", what.c_str(), o.status,
               o.summary.dump().c_str(), o.errors.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: check_program <heddle> <source> <buggy> <fixed> <out-dir> [<backend>]\n");
    return 2;
  }
  const std::string heddle = argv[1], source = argv[2], buggy = argv[3], fixed = argv[4], out = argv[5];
  const bool dpor = argc == 7 && std::string(argv[6]) == "dpor";
  const std::string backend = argc == 7 && !dpor ? argv[6] : "";
  expectation e = read_expectation(source);
  if (dpor) {
    e.flags.insert(e.flags.end(), {"--strategy", "dpor"});
    e.replays = 1;
    e.passes_under_sc = false;
  }
  if (!backend.empty()) {
    e.flags.insert(e.flags.end(), {"--backend", backend});
    e.passes_under_sc = false;  // the run without a backend checks it
  }
  if (e.kind.empty() || e.message.empty()) {
    std::fprintf(stderr, "%s: no '// expect: <bug kind> <message>' line\n", source.c_str());
    return 2;
  }
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  std::filesystem::create_directories(out, ec);

  const std::string budget = dpor ? "100000" : "10000";
  std::vector<std::string> find = {heddle, "run", "--iterations", budget, "--format", "json", "--out", out + "/buggy"};
  find.insert(find.end(), e.flags.begin(), e.flags.end());
  find.insert(find.end(), {"--", buggy});
  const outcome found = run("env", find, out + "/buggy.err");
  if (found.status != 1 || found.summary.value("status", "") != "bug") return fail("no bug found in " + buggy, found);
  const json bug = found.summary.value("bug", json::object());
  if (bug.value("kind", "") != e.kind) return fail("expected a " + e.kind + " bug", found);
  if (bug.value("message", "").find(e.message) == std::string::npos)
    return fail("expected the message to contain '" + e.message + "'", found);
  std::printf("found: %s: %s (iteration %llu)\n", e.kind.c_str(), bug.value("message", "").c_str(),
              static_cast<unsigned long long>(found.summary.value("iterations", 0ull)));

  // The fixed twin passes 1,000 iterations on the default backend. A seed gives
  // the same schedules on both (pushbutton.backends_agree.*), so on the other
  // backend 250 check what is the backend's own (the program's threads, stacks,
  // blocking calls and exits on fibers) without running the same schedules again.
  // dpor's budget is its buggy run's: the twin stops once its search is
  // exhausted (Dekker's lock takes about 10,000 runs).
  const int twin_iterations = dpor ? 100000 : backend.empty() ? 1000 : 250;
  std::vector<std::string> twin = {heddle, "run", "--iterations", std::to_string(twin_iterations), "--format", "json",
                                   "--out", out + "/fixed"};
  twin.insert(twin.end(), e.flags.begin(), e.flags.end());
  // A short watchdog limit finds the buggy program's hang quickly; on a loaded
  // machine it also fires when a healthy iteration is merely descheduled. The
  // twin gets a generous one: a real hang still ends its run at the first one.
  for (std::size_t i = 0; i + 1 < twin.size(); ++i)
    if (twin[i] == "--iteration-timeout") twin[i + 1] = "10s";
  twin.insert(twin.end(), {"--", fixed});
  const outcome passed = run("env", twin, out + "/fixed.err");
  if (dpor) {
    std::string verdict = passed.summary.value("verdict", "");
    // A program with wait loops (Dekker, Peterson, the SPSC ring) is verified
    // up to repeated tries of its loops, which its verdict must say.
    const std::string waits = ", assuming a wait loop's try that saw nothing change has no effect";
    if (passed.summary.value("held_wait_iterations", 0) > 0) {
      if (!verdict.ends_with(waits)) return fail("dpor's verdict does not say what it assumed of wait loops", passed);
      verdict.resize(verdict.size() - waits.size());
    }
    if (passed.status != 0 || !passed.summary.value("exhausted", false) || !passed.summary.value("verified", false) ||
        (!verdict.ends_with(" executions, verified under RC11") &&
         !verdict.ends_with(" executions, verified under RC11, with seq_cst accesses ordered by happens-before")))
      return fail("dpor did not verify the fixed twin under RC11", passed);
    std::printf("fixed twin: %s in %d runs\n", verdict.c_str(), passed.summary.value("iterations", 0));
  } else if (passed.status != 0 || passed.summary.value("iterations", 0) != twin_iterations) {
    return fail("the fixed twin did not pass " + std::to_string(twin_iterations) + " iterations", passed);
  } else {
    std::printf("fixed twin: passed %d iterations\n", passed.summary.value("iterations", 0));
  }

  if (e.passes_under_sc) {
    std::vector<std::string> sc = {heddle, "run", "--iterations", "1000", "--format", "json", "--out", out + "/sc"};
    for (std::size_t i = 0; i < e.flags.size(); ++i) {
      if (e.flags[i] == "--memory-model" && i + 1 < e.flags.size()) ++i;
      else sc.push_back(e.flags[i]);
    }
    sc.insert(sc.end(), {"--memory-model", "sc", "--", buggy});
    const outcome under_sc = run("env", sc, out + "/sc.err");
    if (under_sc.status != 0 || under_sc.summary.value("iterations", 0) != 1000)
      return fail("the buggy program did not pass 1000 iterations under --memory-model sc", under_sc);
    const std::string caveats = under_sc.summary.value("caveats", json::array()).dump();
    if (caveats.find("weaker than seq_cst") == std::string::npos ||
        caveats.find("--memory-model rc11") == std::string::npos)
      return fail("the pass under --memory-model sc does not say that weaker orders ran as seq_cst", under_sc);
    std::printf("under sc: passed 1000 iterations, with the caveat\n");
  }

  const std::string trace = found.summary.value("trace_file", "");
  if (!backend.empty()) {
    std::ifstream in(trace);
    const json recorded = json::parse(in, nullptr, false);
    const std::string ran_on = recorded.is_object() ? recorded["options"].value("backend", "") : "";
    if (ran_on != backend) return fail("the trace says it ran on '" + ran_on + "', not on " + backend, found);
  }
  // A replay runs under the trace's options; the watchdog's limit is not one
  // of them, so it is passed on.
  std::string timeout;
  for (std::size_t i = 0; i + 1 < e.flags.size(); ++i)
    if (e.flags[i] == "--iteration-timeout") timeout = " HEDDLE_ITERATION_TIMEOUT=" + quote(e.flags[i + 1]);
  const outcome replayed = run("env HEDDLE_RUN_FORMAT=json" + timeout + " HEDDLE_REPLAY_REPEAT=" + std::to_string(e.replays),
                               {heddle, "replay", trace}, out + "/replay.err");
  if (replayed.status != 1 || replayed.summary.value("reproduced", 0) != e.replays)
    return fail("the bug did not replay " + std::to_string(e.replays) + " times of " + std::to_string(e.replays),
                replayed);
  std::printf("replayed: %d of %d\n", replayed.summary.value("reproduced", 0), e.replays);
  if (!backend.empty()) {
    // A trace recorded on one backend replays on the other.
    const std::string other = backend == "fibers" ? "threads" : "fibers";
    const outcome crossed = run("env HEDDLE_RUN_FORMAT=json" + timeout + " HEDDLE_BACKEND=" + other,
                                {heddle, "replay", trace}, out + "/replay-" + other + ".err");
    if (crossed.status != 1 || crossed.summary.value("reproduced", 0) != 1)
      return fail("the trace recorded on " + backend + " did not replay on " + other, crossed);
    std::printf("replayed on %s: reproduced\n", other.c_str());
  }
  return 0;
}
