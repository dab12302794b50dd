// Deadlock explanation: when no operation is enabled and some have not
// finished, says who waits for what (and who holds it), records where the
// blocked operations block (the root cause that groups bugs, bug::signature()),
// and asks the test kind's judge (deadlock_judge.hpp) whether the deadlock is a
// bug at all.
#include <fmt/format.h>

#include "engine/deadlock_judge.hpp"
#include "engine/engine.hpp"

namespace heddle::detail {

namespace {
// The one engine whose deadlocks are judged (deadlock_judge.hpp).
struct {
  const engine* judged = nullptr;
  deadlock_judge judge = nullptr;
  void* context = nullptr;
} judging;
}  // namespace

void engine::detect_deadlock() {
  if (unfinished_ == 0) {
    if (watch_ != nullptr) watch_->at_end(iteration_end::finished);
    return;
  }
  // Only operations waiting for work are left (idle actors): the iteration
  // is over, as when everything finished.
  if (watch_ != nullptr) {
    bool idle = true;
    for (operation_id id = 1; id < op_count_ && idle; ++id)
      idle = status_of(id) == op_status::finished || (status_of(id) == op_status::blocked && watch_->idle(id));
    if (idle) {
      watch_->at_end(iteration_end::quiescent);
      return;
    }
  }

  std::string message;
  // Where the blocked operations block, the root cause (bug::signature()).
  // An operation that waits to join another is downstream of the cycle
  // unless joins are all there is (operations joining each other).
  std::vector<source_position> blocked_at, joining_at;
  const char* separator = "";
  for (operation_id id = 1; id < op_count_; ++id) {
    if (status_of(id) != op_status::blocked) continue;
    const operation& op = record_of(id);
    const bool joins = op.point == point_kind::join;
    (joins ? joining_at : blocked_at)
        .push_back(op.where.line() != 0 ? source_position{op.where.file_name(), op.where.line(), op.where.function_name()}
                                        : source_position{});
    message += separator;
    separator = "; ";
    message += describe_operation(id);
    if (op.waiting_on.empty()) {
      message += " waits forever";
      continue;
    }
    const char* joiner = op.mode == wait_mode::all ? " and " : " or ";
    message += " waits for ";
    for (std::size_t i = 0; i < op.waiting_on.size(); ++i) {
      if (i > 0) message += joiner;
      const object_state& o = objects_[op.waiting_on[i]];
      if (o.kind == object_kind::operation) {
        message += fmt::format("{} to finish (join)", describe_operation(o.owner));
      } else {
        message += describe_object(op.waiting_on[i]);
        if (o.owner != 0) message += fmt::format(" held by {}", describe_operation(o.owner));
      }
    }
  }
  const operation_id culprit = running_ != 0 ? running_ : 1;
  bug_kind kind = bug_kind::deadlock;
  if (judging.judge != nullptr && judging.judged == this) {
    deadlock_verdict v = judging.judge(judging.context, message);
    if (v.quiet) return;  // the iteration ends with no bug, its blocked operations unwound
    kind = v.kind;
    if (!v.message.empty()) message = std::move(v.message);
  }
  const bool first = !outcome_.found;
  report(kind, std::move(message), record_of(culprit).where, false);
  if (first && outcome_.found) outcome_.blocked_at = std::move(blocked_at.empty() ? joining_at : blocked_at);
}

void set_deadlock_judge(const engine* e, deadlock_judge judge, void* context) noexcept {
  judging = {judge != nullptr ? e : nullptr, judge, context};
}

}  // namespace heddle::detail
