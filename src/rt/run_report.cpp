// See run_report.hpp.
#include "rt/run_report.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "heddle/explore.hpp"
#include "rt/loader_fini.hpp"
#include "rt/symbolizer.hpp"
#include "runner/report.hpp"

namespace heddle::rt {

namespace fs = std::filesystem;

std::string write_bug_file(const fs::path& dir, const std::string& text) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create output directory '{}': {}", dir.string(), ec.message()));
  for (unsigned n = 1;; ++n) {
    const fs::path target = dir / fmt::format("bug-{}.json", n);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw usage_error(fmt::format("cannot write '{}': {}", target.string(), std::strerror(errno)));
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (!written) throw usage_error(fmt::format("cannot write '{}'", target.string()));
    return target.string();
  }
}

// An operation's name: its own (main, pthread_setname_np), else its
// thread's start routine. The child's code is this process's (a fork), so
// its addresses symbolize here, and only when a report needs them.
std::string operation_name(const fork_channel& ch, operation_id op) {
  if (op == 0 || op >= max_operations || op >= ch.operations_mirrored) return {};
  const operation_mirror& m = ch.operations[op];
  if (m.name[0] != '\0') return m.name;
  if (m.start_pc == 0) return {};
  // std::thread's start routine is libstdc++'s trampoline: no name is better.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(m.start_pc), &info) != 0 && info.dli_fname != nullptr &&
      is_runtime_object(info.dli_fname))
    return {};
  return symbolize(m.start_pc + 1).function;
}

std::string describe_operation(const fork_channel& ch, operation_id op) {
  // No operation runs: the program's exit path (atexit handlers and static
  // destructors, which exit() runs after main returns), or heddle's own code.
  if (op == 0) return "the exit path after main returned";
  const std::string name = operation_name(ch, op);
  return !name.empty() ? fmt::format("operation {} ({})", op, name) : fmt::format("operation {}", op);
}

// The report's view of the iteration: mirrored steps with their operations
// and source locations, names, objects.
detail::iteration_outcome outcome_for_report(const iteration_result& r, const fork_channel& ch) {
  detail::iteration_outcome o;
  o.found = r.found;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    if (i < ch.steps_mirrored) {
      detail::step_record record = const_cast<fork_channel&>(ch).steps()[i];
      record.step = r.steps[i];
      o.steps.push_back(record);
    } else {
      o.steps.push_back({r.steps[i], r.step_operations[i], {}});
    }
  }
  operation_id ops = 1;
  for (const auto& s : o.steps) ops = std::max<operation_id>(ops, s.operation + 1);
  ops = std::max<operation_id>(ops, ch.operations_mirrored);
  for (operation_id id = 1; id < ops && id < max_operations; ++id) o.operation_names.push_back(operation_name(ch, id));
  // A thread without a name of its own or a start routine in the program
  // (std::thread starts in libstdc++): the user function its first located
  // step is in.
  for (std::size_t i = 0; i < o.operation_names.size(); ++i) {
    if (!o.operation_names[i].empty()) continue;
    for (const detail::step_record& s : o.steps) {
      if (s.operation != i + 1 || s.pc == 0 || is_runtime_code(s.pc)) continue;
      const source_position p = symbolize(s.pc);
      if (!p.known() || is_library_file(p.file) || p.function.empty()) continue;
      o.operation_names[i] = p.function;
      break;
    }
  }
  o.objects.resize(std::max<object_id>(ch.objects_mirrored, 1));
  for (object_id id = 1; id < ch.objects_mirrored; ++id) {
    o.objects[id].kind = ch.objects[id].kind;
    o.objects[id].owner = ch.objects[id].owner;
  }
  return o;
}

std::string gdb_command(const run_plan& plan, const std::string& trace_file) {
  std::string command = "gdb";
  const auto set = [&](const std::string& assignment) {
    command += " -ex " + detail::shell_word("set environment " + assignment);
  };
  set("HEDDLE_RUN=direct");
  set("HEDDLE_REPLAY=" + trace_file);
  if (const char* preload = std::getenv("LD_PRELOAD"); preload != nullptr && *preload != '\0')
    set(std::string("LD_PRELOAD=") + preload);
  command += " --args " + detail::shell_word(plan.program_path);
  for (const std::string& a : plan.arguments) command += " " + detail::shell_word(a);
  return command;
}

}  // namespace heddle::rt
