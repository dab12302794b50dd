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
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

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
  // The inline chain (symbolize_frames): the scopes of a pc in its unit.
  decltype(&::dwfl_module_addrdie) module_addrdie = nullptr;
  decltype(&::dwarf_getscopes) getscopes = nullptr;
  decltype(&::dwarf_getscopes_die) getscopes_die = nullptr;
  decltype(&::dwarf_tag) tag = nullptr;
  decltype(&::dwarf_attr_integrate) attr_integrate = nullptr;
  decltype(&::dwarf_formudata) formudata = nullptr;
  decltype(&::dwarf_formstring) formstring = nullptr;
  decltype(&::dwarf_getsrcfiles) getsrcfiles = nullptr;
  decltype(&::dwarf_filesrc) filesrc = nullptr;

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
      find(l.module_addrdie, "dwfl_module_addrdie");
      find(l.getscopes, "dwarf_getscopes");
      find(l.getscopes_die, "dwarf_getscopes_die");
      find(l.tag, "dwarf_tag");
      find(l.attr_integrate, "dwarf_attr_integrate");
      find(l.formudata, "dwarf_formudata");
      find(l.formstring, "dwarf_formstring");
      find(l.getsrcfiles, "dwarf_getsrcfiles");
      find(l.filesrc, "dwarf_filesrc");
      return complete ? &l : nullptr;
    }();
    return loaded;
  }
};

struct session {
  const libdw* dw = nullptr;
  Dwfl* dwfl = nullptr;
  pid_t pid = 0;  // a forked child reports its own maps (same layout, but libdw caches per pid)
  std::map<std::uintptr_t, std::vector<source_position>> cache;

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

// The name of a function-like scope (a subprogram or an inlined
// subroutine, whose name is on its abstract origin): the demangled linkage
// name when there is one, so methods read with their class.
std::string scope_name(const libdw& dw, Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (const unsigned name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
    if (dw.attr_integrate(die, name, &attribute) == nullptr) continue;
    if (const char* text = dw.formstring(&attribute); text != nullptr) return demangle(text);
  }
  return {};
}

bool is_function_scope(const libdw& dw, Dwarf_Die* die) {
  const int tag = dw.tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

// The frames at `address`, innermost first (see symbolize_frames).
std::vector<source_position> look_up_frames(const libdw& dw, Dwfl* dwfl, Dwarf_Addr address) {
  std::vector<source_position> frames;
  source_position innermost = look_up(dw, dwfl, address);
  Dwfl_Module* module = dw.addrmodule(dwfl, address);
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = module != nullptr ? dw.module_addrdie(module, address, &bias) : nullptr;
  // The innermost scope at the address, then its parents in the DIE tree:
  // an inlined subroutine's concrete instance sits inside its caller's scope
  // (dwarf_getscopes itself goes on with the abstract definition's scopes
  // instead), as eu-addr2line -i walks them.
  Dwarf_Die* scopes = nullptr;
  int count = unit != nullptr ? dw.getscopes(unit, address - bias, &scopes) : -1;
  if (count > 0) {
    Dwarf_Die innermost_scope = scopes[0];
    std::free(scopes);
    scopes = nullptr;
    count = dw.getscopes_die(&innermost_scope, &scopes);
  }
  if (count <= 0) {
    if (innermost.known() || !innermost.function.empty()) frames.push_back(std::move(innermost));
    std::free(scopes);
    return frames;
  }
  Dwarf_Files* files = nullptr;
  std::size_t file_count = 0;
  if (dw.getsrcfiles(unit, &files, &file_count) != 0) files = nullptr;
  // The innermost function scope names the innermost frame; each inlined
  // subroutine's call site is the position in the next function scope out.
  int i = 0;
  while (i < count && !is_function_scope(dw, &scopes[i])) ++i;
  if (i < count) {
    if (std::string name = scope_name(dw, &scopes[i]); !name.empty()) innermost.function = std::move(name);
  }
  frames.push_back(std::move(innermost));
  while (i < count && dw.tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
    source_position call;
    Dwarf_Attribute attribute;
    Dwarf_Word file = 0, line = 0;
    if (dw.attr_integrate(&scopes[i], DW_AT_call_file, &attribute) != nullptr && dw.formudata(&attribute, &file) == 0 &&
        files != nullptr && file < file_count) {
      if (const char* path = dw.filesrc(files, file, nullptr, nullptr); path != nullptr) call.file = path;
    }
    if (dw.attr_integrate(&scopes[i], DW_AT_call_line, &attribute) != nullptr && dw.formudata(&attribute, &line) == 0)
      call.line = static_cast<std::uint32_t>(line);
    ++i;
    while (i < count && !is_function_scope(dw, &scopes[i])) ++i;
    if (i < count) call.function = scope_name(dw, &scopes[i]);
    if (call.function.empty()) call.function = frames.front().function;
    frames.push_back(std::move(call));
  }
  std::free(scopes);
  return frames;
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
  // Never destroyed: a fork server's child would otherwise end libdw's
  // session at its exit, faulting in pages of libdw, libelf and the session's
  // blocks in every iteration for memory the process is about to lose.
  static session& s = *new session;  // NOLINT(cppcoreguidelines-owning-memory)
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

std::vector<source_position> symbolize_frames(std::uintptr_t pc) {
  const outside_control guard;
  session& s = current_session();
  if (pc == 0 || s.dwfl == nullptr) return {};
  if (const auto it = s.cache.find(pc); it != s.cache.end()) return it->second;
  std::vector<source_position> frames = look_up_frames(*s.dw, s.dwfl, pc - 1);
  if (frames.empty() && s.open()) frames = look_up_frames(*s.dw, s.dwfl, pc - 1);  // a library loaded since
  s.cache.emplace(pc, frames);
  return frames;
}

bool is_library_file(std::string_view file) {
  return file.starts_with("/usr/include/") || file.starts_with("/usr/lib/") ||
         file.find("/include/c++/") != std::string_view::npos;
}

source_position symbolize(std::uintptr_t pc) {
  const std::vector<source_position> frames = symbolize_frames(pc);
  for (const source_position& f : frames)
    if (f.known() && !is_library_file(f.file)) return f;
  return frames.empty() ? source_position{} : frames.front();
}

bool is_runtime_code(std::uintptr_t pc) {
  static const void* const own_base = [] {
    Dl_info info{};
    return ::dladdr(reinterpret_cast<void*>(&is_library_file), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return pc != 0 && ::dladdr(reinterpret_cast<void*>(pc - 1), &info) != 0 && info.dli_fbase == own_base;
}

}  // namespace heddle::rt
