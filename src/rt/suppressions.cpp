// The race detector's report point asks here whether a race is suppressed
// (runner/suppressions.hpp: ThreadSanitizer's file format). Each access is
// seen as its frames: the access itself, then, for the access being made, the
// callers on its operation's shadow stack (__tsan_func_entry). Each of those
// code addresses is as many frames as the debug information has functions
// inlined there, innermost first (a racy function the compiler inlined into
// its caller is a frame of its own, as ThreadSanitizer's symbolizer shows it).
// A frame is its function and source file (the symbolizer, from debug
// information) and the object it lies in (dladdr), so race:, race_top: and
// called_from_lib: match what ThreadSanitizer would match.
//
// Contract: only the running operation calls in, under control. A verdict is
// cached per pair of access pcs (and the innermost caller) in memory the fork
// server's children and explore()'s workers share: a suppressed race is
// detected in every iteration, and symbolizing it in every child would cost
// more than the iteration.
#include "rt/suppressions.hpp"

#include <dlfcn.h>


#include "rt/symbolizer.hpp"
#include "runner/suppressions.hpp"

namespace heddle::rt {
namespace {

// Appends the frames of the code at `pc`: each function inlined there, then
// the one it was inlined into; one frame without debug information.
void append_frames(std::uintptr_t pc, std::vector<detail::suppression_frame>& frames) {
  std::string library;
  Dl_info info{};
  if (pc != 0 && ::dladdr(reinterpret_cast<void*>(pc - 1), &info) != 0 && info.dli_fname != nullptr)
    library = info.dli_fname;
  std::vector<source_position> inlined = symbolize_frames(pc);
  if (inlined.empty()) inlined.push_back(symbolize(pc));
  for (const source_position& p : inlined) frames.push_back({p.function, p.file, library});
}

}  // namespace

bool race_suppressed(const race& r, const std::vector<std::uintptr_t>& later_callers) {
  const detail::suppression_list& list = detail::active_suppressions();
  if (list.entries.empty()) return false;
  // Keyed by the two access pcs and the innermost caller: the frames a
  // verdict depends on beyond those rarely change for one pair.
  const std::uintptr_t caller = later_callers.empty() ? 0 : later_callers.back();
  const std::uintptr_t key = r.later.pc ^ (caller * 0x9e3779b97f4a7c15ull);
  int verdict = detail::cached_verdict(r.earlier.pc, key);
  if (verdict == -2) {
    std::vector<detail::suppression_frame> earlier, later;
    append_frames(r.earlier.pc, earlier);
    append_frames(r.later.pc, later);
    for (auto c = later_callers.rbegin(); c != later_callers.rend(); ++c) {
      if (is_runtime_code(*c)) break;
      append_frames(*c, later);
    }
    verdict = detail::matching_suppression(list, earlier, later);
    detail::cache_verdict(r.earlier.pc, key, verdict);
  }
  if (verdict < 0) return false;
  detail::count_suppressed(static_cast<std::size_t>(verdict));
  return true;
}

}  // namespace heddle::rt
