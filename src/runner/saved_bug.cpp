// finalize_bug() (see saved_bug.hpp). The child writes one header line,
// "heddle-minimized <0|1> <runs> <elapsed-ns>", then either the trace file's
// text (minimized) or the reason it was not minimized.
#include "runner/saved_bug.hpp"

#include <csignal>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace heddle::detail {
namespace {

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

[[noreturn]] void minimize_in_child(int fd, const std::function<void()>& body, const trace& recorded,
                                    const minimize_limits& limits, const input_reduction* reduce) {
  // A candidate that crashes ends this child, quietly: the run's crash
  // handlers would save the wrong schedule.
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(signal, SIG_DFL);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  const minimization m = minimize(body, recorded, limits, reduce);
  std::string text = fmt::format("heddle-minimized {} {} {}\n", m.minimized ? 1 : 0, m.runs, m.elapsed.count());
  if (m.minimized) {
    const timeline original =
        make_timeline("original", m.original.trace, m.original.outcome, &m.original.preemption_steps);
    const timeline best = make_timeline("minimized", m.best.trace, m.best.outcome, &m.best.preemption_steps);
    text += timeline_json(best, &original);
  } else {
    text += m.reason;
  }
  write_all(fd, text);
  ::_exit(0);  // no atexit handlers, no stdio flush: those belong to the parent
}

// What the child said, or why it said nothing.
std::string run_child(const std::function<void()>& body, const trace& recorded, const minimize_limits& limits,
                      const input_reduction* reduce, std::string& failure) {
  int fds[2];
  if (::pipe(fds) != 0) {
    failure = "the minimizer's pipe could not be created";
    return {};
  }
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    failure = "the minimizer's process could not be started";
    return {};
  }
  if (child == 0) {
    ::close(fds[0]);
    minimize_in_child(fds[1], body, recorded, limits, reduce);
  }
  ::close(fds[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + limits.time_limit + limits.grace;
  bool timed_out = false;
  for (char buffer[65536];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) failure = "the minimizer ran out of time (a candidate schedule hangs?)";
  else if (WIFSIGNALED(status))
    failure = fmt::format("a candidate schedule crashed the minimizer (signal {})", WTERMSIG(status));
  else if (!text.starts_with("heddle-minimized "))
    failure = "the minimizer ended without a result";
  return failure.empty() ? text : std::string{};
}

}  // namespace

finalized_bug finalize_bug(const std::function<void()>& body, const trace& recorded, const iteration_outcome& outcome,
                           const minimize_limits& limits, bool enabled, const input_reduction* reduce) {
  finalized_bug f;
  if (!enabled) f.reason = "minimization is off";
  else if (!recorded.found) f.reason = "the trace records no bug";

  if (f.reason.empty()) {
    const std::string said = run_child(body, recorded, limits, reduce, f.reason);
    if (f.reason.empty()) {
      const auto newline = said.find('\n');
      std::istringstream header(said.substr(0, newline));
      std::string tag;
      int minimized = 0;
      std::int64_t nanoseconds = 0;
      header >> tag >> minimized >> f.runs >> nanoseconds;
      f.elapsed = std::chrono::nanoseconds(nanoseconds);
      const std::string rest = said.substr(newline + 1);
      if (minimized == 1) {
        try {
          f.minimized_timelines = timelines_from_json(rest);
          f.saved = f.minimized_timelines.back().trace;
          f.minimized_text = rest;
          f.minimized = true;
          return f;
        } catch (const trace_error& e) {
          f.reason = fmt::format("the minimizer's result did not read back: {}", e.what());
        }
      } else {
        f.reason = rest;
      }
    }
  }
  f.saved = recorded;
  f.recorded = std::make_shared<const recorded_annotations>(annotations_of(outcome));
  return f;
}

std::vector<timeline> finalized_bug::timelines() const {
  if (minimized) return minimized_timelines;
  if (recorded) return {make_timeline("original", saved, *recorded)};
  return {make_timeline("original", saved)};
}

std::string finalized_bug::file_text() const {
  if (minimized) return minimized_text;
  return timeline_json(timelines().front());
}

std::string finalized_bug::file_text(const std::vector<timeline>& made) const {
  if (minimized) return minimized_text;
  return timeline_json(made.front());
}

}  // namespace heddle::detail
