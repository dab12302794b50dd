// libdw's dwfl over this process: see symbolizer.hpp.
//
// libdw is opened with dlopen when the first report needs it, not linked:
// linked, it and the four libraries it needs (libelf, libz, liblzma, libbz2)
// are in every process, and the fork server's parent forks their mappings
// and every child runs their destructors at exit, for reports most runs never
// make. Without libdw.so.1 positions are unknown, as without debug information.
#include "rt/symbolizer.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <type_traits>

namespace heddle::rt {

namespace {

// The libdw functions used here, from libdw.so.1 once it is opened.
struct libdw {
  decltype(&::dwfl_begin) begin = nullptr;
  decltype(&::dwfl_end) end = nullptr;
  decltype(&::dwfl_linux_proc_report) linux_proc_report = nullptr;
  decltype(&::dwfl_report_end) report_end = nullptr;
  decltype(&::dwfl_linux_proc_find_elf) linux_proc_find_elf = nullptr;
  decltype(&::dwfl_standard_find_debuginfo) standard_find_debuginfo = nullptr;
  decltype(&::dwfl_addrmodule) addrmodule = nullptr;
  decltype(&::dwfl_module_addrname) module_addrname = nullptr;
  decltype(&::dwfl_module_addrinfo) module_addrinfo = nullptr;
  decltype(&::dwfl_module_getsrc) module_getsrc = nullptr;
  decltype(&::dwfl_lineinfo) lineinfo = nullptr;

  // Null when libdw.so.1 or one of the functions is missing.
  static const libdw* get() {
    static const libdw* const loaded = [] () -> const libdw* {
      void* handle = ::dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) return nullptr;
      static libdw l;
      bool complete = true;
      const auto find = [&](auto& f, const char* name) {
        f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(::dlsym(handle, name));
        complete = complete && f != nullptr;
      };
      find(l.begin, "dwfl_begin");
      find(l.end, "dwfl_end");
      find(l.linux_proc_report, "dwfl_linux_proc_report");
      find(l.report_end, "dwfl_report_end");
      find(l.linux_proc_find_elf, "dwfl_linux_proc_find_elf");
      find(l.standard_find_debuginfo, "dwfl_standard_find_debuginfo");
      find(l.addrmodule, "dwfl_addrmodule");
      find(l.module_addrname, "dwfl_module_addrname");
      find(l.module_addrinfo, "dwfl_module_addrinfo");
      find(l.module_getsrc, "dwfl_module_getsrc");
      find(l.lineinfo, "dwfl_lineinfo");
      return complete ? &l : nullptr;
    }();
    return loaded;
  }
};

struct session {
  const libdw* dw = nullptr;
  Dwfl* dwfl = nullptr;
  pid_t pid = 0;  // a forked child reports its own maps (same layout, but libdw caches per pid)
  std::map<std::uintptr_t, source_position> cache;

  ~session() { close(); }
  void close() {
    if (dwfl != nullptr) dw->end(dwfl);
    dwfl = nullptr;
    cache.clear();
  }
  bool open() {
    close();
    dw = libdw::get();
    if (dw == nullptr) return false;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dw->linux_proc_find_elf,
        .find_debuginfo = dw->standard_find_debuginfo,
        .section_address = nullptr,
        .debuginfo_path = nullptr,
    };
    pid = static_cast<pid_t>(::syscall(SYS_getpid));  // not the interposer: only the program's reads count
    dwfl = dw->begin(&callbacks);
    if (dwfl == nullptr) return false;
    if (dw->linux_proc_report(dwfl, pid) != 0 || dw->report_end(dwfl, nullptr, nullptr) != 0) {
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

source_position look_up(const libdw& dw, Dwfl* dwfl, Dwarf_Addr address) {
  source_position p;
  Dwfl_Module* module = dw.addrmodule(dwfl, address);
  if (module == nullptr) return p;
  if (const char* name = dw.module_addrname(module, address); name != nullptr) p.function = demangle(name);
  if (Dwfl_Line* line = dw.module_getsrc(module, address); line != nullptr) {
    int number = 0;
    if (const char* file = dw.lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr); file != nullptr) {
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
  if (s.dwfl == nullptr || s.pid != static_cast<pid_t>(::syscall(SYS_getpid))) s.open();
  return s;
}

}  // namespace

std::string symbolize_data(std::uintptr_t address) {
  const outside_control guard;
  session& s = current_session();
  if (s.dwfl == nullptr) return {};
  Dwfl_Module* module = s.dw->addrmodule(s.dwfl, address);
  if (module == nullptr) return {};
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = s.dw->module_addrinfo(module, address, &offset, &symbol, nullptr, nullptr, nullptr);
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
  source_position p = look_up(*s.dw, s.dwfl, pc - 1);
  if (!p.known() && p.function.empty() && s.open()) p = look_up(*s.dw, s.dwfl, pc - 1);  // a library loaded since
  s.cache.emplace(pc, p);
  return p;
}

}  // namespace heddle::rt
