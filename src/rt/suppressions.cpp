// The race detector's report point asks here whether a race is suppressed
// (runner/suppressions.hpp: ThreadSanitizer's file format). Each access is
// seen as its frames: the access itself, then, for the access being made, the
// callers on its operation's shadow stack (__tsan_func_entry). A frame is its
// function and source file (the symbolizer, from debug information) and the
// object it lies in (dladdr), so race:, race_top: and called_from_lib: match
// what ThreadSanitizer would match.
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

detail::suppression_frame frame_at(std::uintptr_t pc) {
  detail::suppression_frame f;
  const source_position p = symbolize(pc);
  f.function = p.function;
  f.file = p.file;
  Dl_info info{};
  if (pc != 0 && ::dladdr(reinterpret_cast<void*>(pc - 1), &info) != 0 && info.dli_fname != nullptr)
    f.library = info.dli_fname;
  return f;
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
    std::vector<detail::suppression_frame> earlier = {frame_at(r.earlier.pc)};
    std::vector<detail::suppression_frame> later = {frame_at(r.later.pc)};
    for (auto c = later_callers.rbegin(); c != later_callers.rend(); ++c) {
      if (is_runtime_code(*c)) break;
      later.push_back(frame_at(*c));
    }
    verdict = detail::matching_suppression(list, earlier, later);
    detail::cache_verdict(r.earlier.pc, key, verdict);
  }
  if (verdict < 0) return false;
  detail::count_suppressed(static_cast<std::size_t>(verdict));
  return true;
}

}  // namespace heddle::rt
