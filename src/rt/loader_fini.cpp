// See loader_fini.hpp.
#include "rt/loader_fini.hpp"

#include <link.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace heddle::rt {
namespace {

void (*the_loader_fini)() = nullptr;
bool skipping = false;

// The object holding this code: libheddle-rt, or the program when heddle is
// linked into it statically (then it is the program, and kept).
bool holds_this_code(const dl_phdr_info& info) noexcept {
  const auto here = reinterpret_cast<std::uintptr_t>(&loader_fini);
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info.dlpi_phdr[i];
    const std::uintptr_t begin = info.dlpi_addr + p.p_vaddr;
    if (p.p_type == PT_LOAD && here >= begin && here < begin + p.p_memsz) return true;
  }
  return false;
}

// Calls the object's destructors as the loader does: DT_FINI_ARRAY from the
// last entry to the first, then DT_FINI.
void run_destructors(const dl_phdr_info& info) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i)
    if (info.dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr + info.dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return;
  std::uintptr_t array = 0, array_size = 0, fini = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_FINI_ARRAY) array = info.dlpi_addr + d->d_un.d_ptr;
    if (d->d_tag == DT_FINI_ARRAYSZ) array_size = d->d_un.d_val;
    if (d->d_tag == DT_FINI) fini = info.dlpi_addr + d->d_un.d_ptr;
  }
  using destructor = void (*)();
  const auto* entries = reinterpret_cast<const destructor*>(array);
  for (std::size_t n = array != 0 ? array_size / sizeof(destructor) : 0; n-- > 0;) entries[n]();
  if (fini != 0) reinterpret_cast<destructor>(fini)();
}

// Whether the file name of `path` (after its last '/') starts with one of `prefixes`.
template <std::size_t n>
bool named_as(const char* path, const std::string_view (&prefixes)[n]) noexcept {
  if (path == nullptr) return false;
  const char* slash = std::strrchr(path, '/');
  const std::string_view name = slash != nullptr ? slash + 1 : path;
  for (const std::string_view prefix : prefixes)
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

// The libraries libdw needs (the symbolizer opens it in the fork server):
// their destructors free memory and nothing else, whoever else uses them.
bool is_libdw_dependency(const char* path) noexcept {
  static constexpr std::string_view libraries[] = {"libz.so.", "liblzma.so.", "libbz2.so.", "libzstd.so."};
  return named_as(path, libraries);
}

bool is_runtime(const dl_phdr_info& info) noexcept {
  return is_runtime_object(info.dlpi_name) || is_libdw_dependency(info.dlpi_name) || holds_this_code(info);
}

// The objects loaded when the fork server prepared its children, and whether
// each is the runtime's (prepare_runtime_fini): a child's exit then reads no
// known object's name or program headers, each a page of that object (or of
// the vDSO) to fault in. Objects loaded later are classified at exit.
struct known_object {
  std::uintptr_t address;
  const void* headers;
  bool runtime;
};
constexpr std::size_t max_known = 64;
known_object known[max_known];
std::size_t known_count = 0;

const known_object* find_known(const dl_phdr_info& info) noexcept {
  for (std::size_t i = 0; i < known_count; ++i)
    if (known[i].address == info.dlpi_addr && known[i].headers == info.dlpi_phdr) return &known[i];
  return nullptr;
}

int remember(dl_phdr_info* info, std::size_t, void*) {
  if (known_count < max_known) known[known_count++] = {info->dlpi_addr, info->dlpi_phdr, is_runtime(*info)};
  return 0;
}

// The objects whose destructors run, in load order, which puts a library
// after the objects that need it, as the loader's teardown orders them; the
// program (the first object) is always kept. Collected first and run outside
// dl_iterate_phdr, which holds the loader's lock (a destructor may dlclose).
int collect_kept(dl_phdr_info* info, std::size_t, void* out) {
  auto& kept = *static_cast<std::vector<dl_phdr_info>*>(out);
  if (!kept.empty()) {
    const known_object* k = find_known(*info);
    if (k != nullptr ? k->runtime : is_runtime(*info)) return 0;
  }
  kept.push_back(*info);
  return 0;
}

// `object` as the loader has it now, if it is still loaded: a destructor run
// before may have unloaded it (dlclose), and its code with it.
struct lookup {
  const dl_phdr_info* wanted;
  dl_phdr_info found;
  bool present;
};

int find_again(dl_phdr_info* info, std::size_t, void* out) {
  auto& l = *static_cast<lookup*>(out);
  if (info->dlpi_addr != l.wanted->dlpi_addr || info->dlpi_phdr != l.wanted->dlpi_phdr) return 0;
  l.found = *info;
  l.present = true;
  return 1;
}

}  // namespace

void set_loader_fini(void (*fini)()) noexcept { the_loader_fini = fini; }

void skip_runtime_fini() noexcept { skipping = true; }

void prepare_runtime_fini() {
  known_count = 0;
  ::dl_iterate_phdr(&remember, nullptr);
}

bool is_runtime_object(const char* path) noexcept {
  // The C library and the loader, the C++ runtime, and what libheddle-rt needs.
  static constexpr std::string_view runtime[] = {
      "libc.so.",    "libm.so.",          "libpthread.so.", "libdl.so.",      "librt.so.",
      "ld-linux",    "linux-vdso.so.",    "libstdc++.so.",  "libgcc_s.so.",   "libatomic.so.",
      "libfmt.so.",  "libboost_context.", "libdw.so.",      "libelf.so.",     "libheddle-rt.so"};
  return named_as(path, runtime);
}

void loader_fini() {
  if (!skipping) {
    if (the_loader_fini != nullptr) the_loader_fini();
    return;
  }
  std::vector<dl_phdr_info> kept;
  ::dl_iterate_phdr(&collect_kept, &kept);
  for (const dl_phdr_info& info : kept) {
    lookup again{&info, {}, false};
    ::dl_iterate_phdr(&find_again, &again);
    if (again.present) run_destructors(again.found);
  }
}

}  // namespace heddle::rt
