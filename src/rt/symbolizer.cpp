// libdw's dwfl over this process: see symbolizer.hpp.
#include "rt/symbolizer.hpp"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

namespace heddle::rt {

namespace {

struct session {
  Dwfl* dwfl = nullptr;
  pid_t pid = 0;  // a forked child reports its own maps (same layout, but libdw caches per pid)
  std::map<std::uintptr_t, source_position> cache;

  ~session() { close(); }
  void close() {
    if (dwfl != nullptr) dwfl_end(dwfl);
    dwfl = nullptr;
    cache.clear();
  }
  bool open() {
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = nullptr,
        .debuginfo_path = nullptr,
    };
    close();
    pid = getpid();
    dwfl = dwfl_begin(&callbacks);
    if (dwfl == nullptr) return false;
    if (dwfl_linux_proc_report(dwfl, pid) != 0 || dwfl_report_end(dwfl, nullptr, nullptr) != 0) {
      close();
      return false;
    }
    return true;
  }
};

std::string demangle(const char* name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return name;
  std::string result = text;
  std::free(text);
  // "bump(int*)" reads better as "bump" in a one-line message: drop the
  // parameter list (the last balanced parentheses; templates may hold others).
  if (result.ends_with(')')) {
    int depth = 0;
    for (std::size_t i = result.size(); i-- > 0;) {
      if (result[i] == ')') ++depth;
      if (result[i] == '(' && --depth == 0) {
        if (i > 0) result.resize(i);
        break;
      }
    }
  }
  return result;
}

source_position look_up(Dwfl* dwfl, Dwarf_Addr address) {
  source_position p;
  Dwfl_Module* module = dwfl_addrmodule(dwfl, address);
  if (module == nullptr) return p;
  if (const char* name = dwfl_module_addrname(module, address); name != nullptr) p.function = demangle(name);
  if (Dwfl_Line* line = dwfl_module_getsrc(module, address); line != nullptr) {
    int number = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr); file != nullptr) {
      p.file = file;
      p.line = static_cast<std::uint32_t>(number);
    }
  }
  return p;
}

// libdw takes pthread locks of its own. Under control those calls would reach
// libheddle-rt's pthread models and become scheduling points of the program;
// while symbolizing, this OS thread is outside control, so they are the C
// library's. No lock of ours: only the running operation, or the runner
// between iterations, makes reports.
class outside_control {
 public:
  outside_control() noexcept : saved_(detail::control.running) { detail::control.running = 0; }
  ~outside_control() { detail::control.running = saved_; }
  outside_control(const outside_control&) = delete;
  outside_control& operator=(const outside_control&) = delete;

 private:
  operation_id saved_;
};

session& current_session() {
  static session s;
  if (s.dwfl == nullptr || s.pid != getpid()) s.open();
  return s;
}

}  // namespace

std::string symbolize_data(std::uintptr_t address) {
  const outside_control guard;
  session& s = current_session();
  if (s.dwfl == nullptr) return {};
  Dwfl_Module* module = dwfl_addrmodule(s.dwfl, address);
  if (module == nullptr) return {};
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = dwfl_module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name == nullptr || GELF_ST_TYPE(symbol.st_info) != STT_OBJECT || offset >= symbol.st_size) return {};
  std::string text = demangle(name);
  if (offset != 0) text += "+" + std::to_string(offset);
  return text;
}

source_position symbolize(std::uintptr_t pc) {
  const outside_control guard;
  session& s = current_session();
  if (pc == 0 || s.dwfl == nullptr) return {};
  if (const auto it = s.cache.find(pc); it != s.cache.end()) return it->second;
  source_position p = look_up(s.dwfl, pc - 1);
  if (!p.known() && p.function.empty() && s.open()) p = look_up(s.dwfl, pc - 1);  // a library loaded since
  s.cache.emplace(pc, p);
  return p;
}

}  // namespace heddle::rt
