// The controlled side of heddle::checked<C> (heddle/checked.hpp): the calls in
// flight on one checked container, the overlap check, and its message.
//
// The check runs right after a call's entry point, when the calling operation
// has been chosen to go on: a call of another operation that is still in
// flight then overlaps this one in time. A read and a read never conflict
// (TSVD's rule: std containers allow concurrent const calls); anything with a
// write does. Calls of one operation never conflict with each other (a
// comparator that reads its own map is sequential code).
#include "heddle/checked.hpp"

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "heddle/bug.hpp"

namespace heddle::detail {

namespace {

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const char* kind_name(checked_access kind) { return kind == checked_access::write ? "write" : "read"; }

// "push_back (write)" + " on checked vector #3" (first call only) + " by
// operation 2 (worker)" + " at tsv.cpp:14" (when the line is known).
std::string describe(const char* method, checked_access kind, std::string_view object, operation_id op,
                     const std::source_location& where) {
  const engine* e = engine::current();
  std::string text = fmt::format("{} ({})", method, kind_name(kind));
  if (!object.empty()) text += fmt::format(" on {}", object);
  text += " by ";
  text += e != nullptr ? e->describe_operation(op) : fmt::format("operation {}", op);
  if (where.line() != 0) text += fmt::format(" at {}:{}", basename_of(where.file_name()), where.line());
  return text;
}

}  // namespace

void checked_object::enter(const char* method, checked_access kind, std::source_location loc) {
  scheduling_point(kind == checked_access::write ? point_kind::write : point_kind::read, resource_, loc);
  if (epoch_ != control.epoch) {
    calls_.clear();
    epoch_ = control.epoch;
  }
  const operation_id me = control.running;
  for (const call& other : calls_) {
    if (other.operation == me || (other.kind == checked_access::read && kind == checked_access::read)) continue;
    const std::string object = fmt::format("checked {} #{}", type_, resource_.id());
    report_bug(bug_kind::thread_safety_violation,
               fmt::format("thread-safety violation: {} overlaps {}", describe(method, kind, object, me, loc),
                           describe(other.method, other.kind, {}, other.operation, other.where)),
               loc);
  }
  calls_.push_back({me, kind, method, loc});
}

void checked_object::leave() noexcept {
  // While the iteration unwinds, the container may be gone already (its owner
  // unwound first); the calls are stale by the next iteration anyway.
  if (control.unwinding || epoch_ != control.epoch) return;
  for (std::size_t i = calls_.size(); i-- > 0;) {
    if (calls_[i].operation == control.running) {
      calls_.erase(calls_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

void checked_object::destroyed() noexcept {
  const operation_id me = control.running;
  for (const call& other : calls_) {
    if (other.operation == me) continue;
    try {
      const std::string object = fmt::format("checked {} #{}", type_, resource_.id());
      flag_bug(bug_kind::thread_safety_violation,
               fmt::format("thread-safety violation: {} overlaps {}",
                           describe("destructor", checked_access::write, object, me, {}),
                           describe(other.method, other.kind, {}, other.operation, other.where)),
               {});
    } catch (...) {  // out of memory formatting the message: the overlap goes unreported
    }
    return;
  }
}

}  // namespace heddle::detail
