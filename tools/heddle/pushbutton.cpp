// See pushbutton.hpp. The ELF check reads the program's dynamic section with
// libelf (elfutils).
#include "pushbutton.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "heddle/explore.hpp"
#include "process.hpp"
#include "test_binary.hpp"

namespace heddle::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view runtime_name = "libheddle-rt.so";

fs::path this_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

}  // namespace

bool is_pushbutton_test(const std::string& test) { return test.starts_with("run:"); }

std::string find_runtime() {
  if (const char* given = std::getenv("HEDDLE_RT"); given != nullptr && *given != '\0') {
    if (!fs::exists(given)) throw usage_error(fmt::format("HEDDLE_RT names '{}', which does not exist", given));
    return fs::absolute(given).string();
  }
  const fs::path bin = this_executable().parent_path();
  for (const fs::path& candidate : {bin / ".." / "src" / "rt" / runtime_name, bin / ".." / "lib" / runtime_name,
                                    bin / ".." / "lib" / "x86_64-linux-gnu" / runtime_name}) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec).string();
  }
  throw usage_error(fmt::format("cannot find {} next to {} (set HEDDLE_RT to its path)", runtime_name,
                                this_executable().string()));
}

bool links_runtime(const std::string& program) {
  ::elf_version(EV_CURRENT);
  const int fd = ::open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool found = false;
  if (Elf* elf = ::elf_begin(fd, ELF_C_READ, nullptr); elf != nullptr) {
    for (Elf_Scn* section = ::elf_nextscn(elf, nullptr); section != nullptr && !found;
         section = ::elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (::gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_DYNAMIC) continue;
      Elf_Data* data = ::elf_getdata(section, nullptr);
      for (std::size_t i = 0; data != nullptr && i < header.sh_size / header.sh_entsize; ++i) {
        GElf_Dyn entry;
        if (::gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr || entry.d_tag != DT_NEEDED) continue;
        const char* name = ::elf_strptr(elf, header.sh_link, entry.d_un.d_val);
        found = found || (name != nullptr && std::string_view(name).starts_with(runtime_name));
      }
    }
    ::elf_end(elf);
  }
  ::close(fd);
  return found;
}

int run_under_heddle(const std::string& program, const std::vector<std::string>& arguments,
                     const std::map<std::string, std::string>& variables) {
  check_executable(program, "program");
  const std::string runtime = find_runtime();
  if (!links_runtime(program)) {
    fmt::print(stderr,
               "heddle: warning: {} is not built with heddle-cc/heddle-c++: its memory accesses are not "
               "instrumented (synchronization is still controlled; libheddle-rt is preloaded)\n",
               program);
    const char* before = std::getenv("LD_PRELOAD");
    const std::string preload = before != nullptr && *before != '\0' ? runtime + ":" + before : runtime;
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
  }
  for (const auto& [name, value] : variables) ::setenv(name.c_str(), value.c_str(), 1);
  ::setenv("HEDDLE_RUN", "1", 1);
  // Every function resolved once, in the fork server: lazily bound, each
  // child would resolve again what it calls, as its parent never did
  // (docs/pushbutton.md). LD_BIND_NOW= (empty) in the environment opts out.
  ::setenv("LD_BIND_NOW", "1", 0);
  // An OpenMP program's threads spin (300,000 rounds, libgomp's default)
  // before each futex wait. Only one thread runs at a time under heddle, so
  // nothing they wait for changes during the spin, which always runs out: it
  // changes no execution and cost 95% of an iteration (26 iterations/s
  // against 526 without it). Unless the user chose a wait policy.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) ::setenv("GOMP_SPINCOUNT", "0", 0);
  // The same addresses in every run, so that a program that hashes or orders
  // by address follows its trace on replay: address randomization off for the
  // program (inherited through exec, as `setarch -R` does). Malloc still
  // places blocks as the C library does. The fork server records in each
  // trace whether it took effect.
  if (const int persona = ::personality(0xffffffff); persona != -1 && (persona & ADDR_NO_RANDOMIZE) == 0 &&
                                                      ::personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1)
    fmt::print(stderr, "heddle: warning: cannot turn address randomization off ({}): a program that hashes or orders "
                       "by address may not replay\n", std::strerror(errno));
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  const exit_status status = run_process(program, argv);
  if (status.signaled()) {
    fmt::print(stderr, "heddle: {} died of {} outside an iteration (in its fork server)\n", program,
               signal_name(status.signal));
    return internal_error;
  }
  return status.code;
}

}  // namespace heddle::cli
