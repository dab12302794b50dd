// The engine's scheduler: operations and the objects they block on, the
// enabled set, decisions (of operations and of values), blocking and waking,
// and the virtual clock. See engine.hpp for the contract. The end of an
// iteration (bugs, unwinding) is in unwinding.cpp, deadlock explanation in
// deadlock.cpp.
//
// Hot path: point() -> reschedule() -> decide() -> backend switch. Nothing on it
// allocates once the per-iteration vectors have reached their working size:
// operation and object records are reused across iterations, and the trace's
// step vectors are cleared, not freed.
#include "engine/call_site.hpp"
#include "engine/engine_internal.hpp"
#include "engine/rng.hpp"
#include "engine/schedule_hash.hpp"
#include "engine/weak_memory.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <typeinfo>

#include <cxxabi.h>

#include <fmt/format.h>

namespace heddle::detail {

std::vector<std::uintptr_t>& interposed_call_pcs() noexcept {
  static std::vector<std::uintptr_t>* const pcs = new std::vector<std::uintptr_t>();  // NOLINT: never freed
  return *pcs;
}

namespace {
std::atomic<std::uint32_t> next_epoch{1};

// The room the step records took on this thread so far, for the next
// engine's first reservation. Each explore() call makes an engine; grown from
// a small reservation, its step buffer is reallocated and copied at each
// doubling, and every reallocation touches fresh pages: 64 bytes a decision,
// a page fault every 64 decisions, and a page fault costs microseconds (about
// 10 us on the project's paravirtualized machines, more than the 64 decisions
// themselves). Reserved at once, the buffer is one block the allocator hands
// back to the next engine with its pages still mapped.
thread_local std::size_t step_room = 256;
// The same for the label table: a task program makes an operation id per
// coroutine resumption (engine::renew), 20,000 in an iteration of 2 tasks x
// 10,000 yields, and growing the table by doubling in each explore() call's
// first iteration cost more than the nine iterations after it.
thread_local std::size_t operation_room = 16;
// The label table itself, kept from the last engine on this thread for the
// next (labels are reused from iteration to iteration anyway). Each
// explore() call makes an engine, and a table of 20,000 labels, freed and
// allocated again, went back to the system between the calls whenever
// malloc's adaptive mmap threshold said so: page faults in the next call's
// first iteration (5x slower task switches in task_bench when
// decisions/random ran first, when the table held 128-byte records).
thread_local std::vector<operation_label> spare_labels;
// And the records, few (one per spawned operation) but kept likewise: an
// explore() call allocates nothing for them once one ran on the thread.
thread_local std::vector<operation> spare_records;

// Whether `where` names no place (std::source_location{}, as interposed calls
// pass), tested on its one pointer instead of through it: a location from
// source_location::current() always has a line, an empty one a null pointer.
bool names_no_place(const std::source_location& where) noexcept {
  if constexpr (sizeof(std::source_location) == sizeof(const void*)) {
    return std::bit_cast<const void*>(where) == nullptr;
  } else {
    return where.line() == 0;
  }
}

std::string demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && out != nullptr ? out : name;
  std::free(out);
  return result;
}
}  // namespace

engine::engine(backend& b, engine_config config)
    : backend_(b), fibers_(dynamic_cast<fiber_backend*>(&b)), config_(config) {
  // Room for a short iteration's steps, or for as many as an earlier
  // iteration on this thread took: no growth (a reallocation and a copy each
  // time), which in a fork server's child also means fewer pages to fault in.
  outcome_.steps.reserve(step_room);
  if (spare_labels.capacity() > 0) labels_ = std::move(spare_labels);
  labels_.reserve(operation_room);
  if (spare_records.capacity() > 0) ops_ = std::move(spare_records);
  install_unwind_safety_net();
}

engine::~engine() {
  if (labels_.capacity() > spare_labels.capacity()) spare_labels = std::move(labels_);
  if (ops_.capacity() > spare_records.capacity()) spare_records = std::move(ops_);
}

const iteration_outcome& engine::run(strategy& s, const std::function<void()>& body) {
  // An explore() inside an operation of another (a test of heddle itself) gets
  // the outer iteration's control block back when this one ends.
  const control_block previous = control;
  control = {this, next_epoch.fetch_add(1, std::memory_order_relaxed), 0, false, nullptr,
             config_.memory_model == memory_model::rc11};
  reset();
  publish_objects();
  strategy_ = &s;
  observes_forced_ = s.observes_forced_decisions();
  uniform_ = s.uniform_draws();
  add_lock_points(0);  // plain_, for this strategy
  fair_from_ = s.fair_from();
  root_body_ = &body;

  backend_.begin_iteration(&engine::operation_entry, this);
  spawn({}, "main", relation::spawn, 0);

  if (const decision first = decide(); first.id != 0) {
    set_running(first);
    switch_to(0, first.record);
  }
  // Back on the scheduler: the iteration is over.
  set_running({});
  unwind_all();
  if (watch_ != nullptr) watch_->after_iteration();
  watch_ = nullptr;
  backend_.end_iteration();

  outcome_.hit_max_steps = outcome_.hit_max_steps && !outcome_.found;
  outcome_.schedule_hash = schedule_hash_finish(schedule_hash_, outcome_.steps.size());
  outcome_.weak_execution = weak_memory_ ? weak_memory_->execution() : 0;
  if (outcome_.steps.capacity() > step_room) [[unlikely]] step_room = outcome_.steps.capacity();
  if (labels_.capacity() > operation_room) [[unlikely]] operation_room = labels_.capacity();
  if (outcome_.found || outcome_.stopped) {
    outcome_.operation_names.clear();
    for (operation_id id = 1; id < op_count_; ++id) outcome_.operation_names.push_back(name_of(id));
    outcome_.objects.assign(objects_.begin(), objects_.begin() + object_count_);
    for (auto& o : outcome_.objects) o.waiters.clear();
  }
  control = previous;
  strategy_ = nullptr;
  root_body_ = nullptr;
  return outcome_;
}

weak_memory& engine::weak_memory_state() {
  if (!weak_memory_) {
    weak_memory_ = std::make_shared<weak_memory>(*this);
    weak_access_ = &weak_memory_->last_access();
  }
  return *weak_memory_;
}

void engine::reset() {
  if (weak_memory_) weak_memory_->clear();
  op_count_ = 1;  // slot 0 is the scheduler
  record_count_ = 1;
  start_count_ = 0;
  unfinished_ = 0;
  object_count_ = 1;
  if (ops_.empty()) ops_.resize(1);
  if (labels_.empty()) labels_.resize(1);
  if (objects_.empty()) objects_.resize(1);
  set_running({});
  now_ = 0;
  ending_ = false;
  watch_ = nullptr;
  watch_limit_ = ~std::uint64_t{0};
  lock_points_ = 0;
  unwinding_ = false;
  user_state_hash_ = 0;
  schedule_hash_ = schedule_hash_start;
  enabled_.clear();
  outcome_.found.reset();
  outcome_.steps.clear();
  limit_steps();  // after ending_, watch_limit_ and the step buffer
  outcome_.blocked_at.clear();
  outcome_.woken.clear();
  outcome_.hit_max_steps = false;
  outcome_.weak_order = false;
  outcome_.relaxed_atomics = false;
  outcome_.sc_in_run_order = false;
  outcome_.weak_notes.clear();
  outcome_.notes.clear();
  outcome_.stopped.reset();
  outcome_.max_enabled = 0;
  outcome_.state_hash.reset();
}

std::vector<trace_step> iteration_outcome::trace_steps() const {
  std::vector<trace_step> out;
  out.reserve(steps.size());
  for (const step_record& r : steps) out.push_back(r.step);
  return out;
}

// --- objects -----------------------------------------------------------------

object_id engine::register_object(object_kind kind) {
  const object_id id = object_count_++;
  if (id == objects_.size()) {
    objects_.emplace_back();
    publish_objects();
  }
  object_state& o = objects_[id];
  o.kind = kind;
  o.owner = 0;
  o.waiters.clear();
  return id;
}

std::string engine::describe_operation(operation_id id) const {
  if (id == 0 || id >= op_count_) return fmt::format("operation {}", id);
  const std::string& name = name_of(id);
  return name.empty() ? fmt::format("operation {}", id) : fmt::format("operation {} ({})", id, name);
}

std::string engine::describe_object(object_id id) const {
  if (id == 0 || id >= object_count_) return "nothing";
  const object_state& o = objects_[id];
  if (o.kind == object_kind::operation) return describe_operation(o.owner);
  return fmt::format("{} #{}", to_string(o.kind), id);
}

// --- operations --------------------------------------------------------------

operation_id engine::spawn(std::function<void()> body, std::string name, relation rel,
                           operation_id of) {
  const operation_id id = op_count_++;
  const std::uint32_t record = record_count_++;
  ++unfinished_;
  if (id == labels_.size()) labels_.emplace_back();
  if (record == ops_.size()) ops_.emplace_back();
  if (fibers_ != nullptr) fibers_->reserve_slot(record);  // switch_now() does not look
  operation& op = ops_[record];
  op.id = id;
  op.record = record;
  op.parent = running_;
  op.chain = (rel == relation::continuation && of != 0 && of < id) ? labels_[of].chain : id;
  op.start = new_start(std::move(name), std::move(body));
  labels_[id] = {record, op.chain, op.parent, op.start};
  op.follower = 0;
  op.status = op_status::enabled;
  op.started = false;
  op.unwind_requested = false;
  op.abandoned = false;
  op.abort_in_flight = false;
  op.self = register_object(object_kind::operation);
  objects_[op.self].owner = id;
  op.point = point_kind::start;
  op.object = op.self;
  op.where = std::source_location{};
  op.pc = 0;
  op.lock = false;
  op.mode = wait_mode::none;
  op.waiting_on.clear();
  op.deadline.reset();
  op.reason = wake_reason::signaled;
  op.woken_by = 0;
  op.listed_at = static_cast<std::uint32_t>(enabled_.size());
  enabled_.push_back(pending_of(op));  // ids grow: stays ascending
  return id;
}

std::size_t engine::operation_entry(void* self, std::size_t slot) {
  // `slot` is the record: an operation that starts is the one spawn() made
  // it for (a continuation never starts), operation 1's record is 1.
  auto& e = *static_cast<engine*>(self);
  e.ops_[slot].started = true;
  try {
    e.after_resume();
    if (slot == 1) {
      (*e.root_body_)();
    } else {
      // Moved onto this operation's stack, so its captures die here, under control.
      std::function<void()> body = std::move(e.starts_[e.ops_[slot].start].body);
      body();
    }
  } catch (const iteration_abort&) {
    e.ops_[slot].abort_in_flight = false;  // unwound on purpose
  } catch (const std::exception& ex) {
    e.report(bug_kind::uncaught_exception,
             fmt::format("uncaught exception {}: {}", demangle(typeid(ex).name()), ex.what()),
             e.ops_[slot].where, false);
  } catch (...) {
    e.report(bug_kind::uncaught_exception, "uncaught exception of a type not derived from std::exception",
             e.ops_[slot].where, false);
  }
  return e.finish_running();
}

std::size_t engine::finish_running() {
  const operation_id me = running_;
  operation& op = ops_[running_record_];
  op.status = op_status::finished;
  --unfinished_;
  op.point = point_kind::finish;
  add_lock_points(-static_cast<int>(op.lock));
  op.lock = false;
  unlist_enabled(me);
  signal(op.self);
  if (unwinding_) return 0;
  const decision next = decide(true);
  set_running(next);
  return next.record;
}

bool engine::finished(operation_id op) const {
  return op != 0 && op < op_count_ && status_of(op) == op_status::finished;
}

void engine::join(operation_id target, const std::source_location& where) {
  // An id its record no longer runs (renew) has finished and is joined on nothing.
  const operation& t = record_of(target);
  const object_id self = t.id == target ? t.self : 0;
  // One decision either way: a point when the target has finished, else the wait.
  if (finished(target)) point(point_kind::join, self, where);
  while (!finished(target)) {
    const object_id objects[] = {self};
    wait(objects, wait_mode::one, std::nullopt, point_kind::join, where);
  }
}

// --- scheduling --------------------------------------------------------------

inline void engine::reschedule(bool from_point) {
  const decision next = decide(false, from_point);
  // Read after the decision, not kept in a register through it. The records
  // tell the running operation from another as the ids do (a record runs
  // one id at a time).
  const std::uint32_t mine = running_record_;
  if (next.record != mine) {
    set_running(next);
    switch_to(mine, next.record);  // next.id == 0: to the scheduler, which unwinds us
    if (from_point) after_resume();
  }
  // A point found unwinding_ false, and without a switch nothing set it.
  if (!from_point) after_resume();
}

inline void engine::after_resume() {
  // unwinding_ first: one flag in the control block, set only while the
  // iteration's operations are unwound.
  if (unwinding_ && ops_[running_record_].unwind_requested) [[unlikely]] unwind_after_resume();
}

// The enabled set is kept up to date as operations change state, not rebuilt
// at each decision. Invariant: enabled_ holds, ascending by id, exactly the
// operations that are enabled or blocked with a deadline, each entry with the
// operation's current pending point, and each listed operation's listed_at
// its index there (shifted entries are renumbered; a few at most).
void engine::list_enabled(const operation& op) {
  std::size_t at = enabled_.size();
  while (at > 0 && enabled_[at - 1].id > op.id) --at;
  if (at > 0 && enabled_[at - 1].id == op.id) {
    refresh_enabled(op);
    return;
  }
  // By hand rather than vector::insert and erase: the set holds a few entries,
  // and those call memmove for them at every block and wake-up.
  enabled_.emplace_back();
  for (std::size_t i = enabled_.size() - 1; i > at; --i) {
    enabled_[i] = enabled_[i - 1];
    ops_[enabled_[i].record].listed_at = static_cast<std::uint32_t>(i);
  }
  enabled_[at] = pending_of(op);
  ops_[op.record].listed_at = static_cast<std::uint32_t>(at);
}

void engine::unlist_enabled(operation_id id) {
  const std::size_t n = enabled_.size();
  for (std::size_t i = 0; i < n; ++i)
    if (enabled_[i].id == id) {
      for (std::size_t j = i + 1; j < n; ++j) {
        enabled_[j - 1] = enabled_[j];
        ops_[enabled_[j - 1].record].listed_at = static_cast<std::uint32_t>(j - 1);
      }
      enabled_.pop_back();
      return;
    }
}

// `op` is listed (enabled, or blocked with a deadline).
inline void engine::refresh_enabled(const operation& op) {
  pending_operation& p = enabled_[op.listed_at];
  p.point = op.point;
  p.object = op.object;
  p.timed = op.status == op_status::blocked && op.deadline.has_value();
  p.lock = op.lock;
}

pending_operation engine::pending_of(const operation& op) {
  return {op.id,     op.chain, op.parent, op.point, op.object, op.status == op_status::blocked && op.deadline.has_value(),
          op.lock, op.record};
}

std::span<const pending_operation> engine::offered_operations(std::size_t first) {
  const std::span<const pending_operation> all = enabled_;
  std::size_t waiting = 1;
  for (std::size_t i = first + 1; i < all.size(); ++i) waiting += waits_for_lock(all[i]) ? 1 : 0;
  if (waiting == all.size()) return all;
  // One left out at either end (two operations contending for one lock):
  // a part of the enabled set, without a copy.
  if (waiting == 1 && first == 0) return all.subspan(1);
  if (waiting == 1 && first == all.size() - 1) return all.first(first);
  if (offered_.size() < all.size()) offered_.resize(all.size());
  std::size_t n = 0;
  for (const pending_operation& p : all)
    if (!waits_for_lock(p)) offered_[n++] = p;
  return {offered_.data(), n};
}

inline engine::decision engine::decide(bool finishing, bool from_point) {
  const std::uint64_t step = outcome_.steps.size();
  // step_limit_ is 0 while ending_ (limit_steps).
  if ((!from_point && enabled_.empty()) || step >= step_limit_) [[unlikely]] return decide_end(finishing);

  // CHESS's rule: an operation about to take a lock somebody else holds is
  // not enabled. Offering it would cost a decision and two switches, and
  // only block it.
  std::span<const pending_operation> offered = enabled_;
  if (!plain_ && lock_points_ != 0) {
    if (enabled_.size() == 2) {
      // Two operations contending for one lock, the common case, inline.
      const bool first_waits = waits_for_lock(enabled_[0]);
      if (first_waits != waits_for_lock(enabled_[1])) offered = offered.subspan(first_waits ? 1 : 0, 1);
    } else {
      for (std::size_t i = 0; i < enabled_.size(); ++i)
        if (waits_for_lock(enabled_[i])) {
          offered = offered_operations(i);
          break;
        }
    }
  }
  if (offered.size() > outcome_.max_enabled) outcome_.max_enabled = offered.size();
  std::size_t pick = 0;
  if (plain_) [[likely]] {
    if (offered.size() > 1) [[likely]] pick = uniform_->below(offered.size());
  } else if (uniform_ != nullptr && offered.size() > 1) {
    pick = uniform_->below(offered.size());  // `random`, without the virtual call (strategy::uniform_draws)
  } else if (offered.size() > 1 || observes_forced_) {
    const operation& at = ops_[running_record_];
    const decision_context ctx{offered,  running_,  step,      op_count_ - 1, user_state_hash_, finishing,
                               at.point, at.object, true,      weak_access_};
    pick = strategy_->next_operation(ctx);
    if (pick >= offered.size()) [[unlikely]] return stopped_by_strategy(pick, step, offered.size());
  }
  const operation_id chosen = offered[pick].id;
  const std::uint32_t record = offered[pick].record;
  operation& op = ops_[record];
  // step_limit_ is at most the step buffer's room: the record is appended
  // without the vector's test for growth.
  if (outcome_.steps.size() == outcome_.steps.capacity()) __builtin_unreachable();
  record_step(step_kind::schedule, op.point, op.object, chosen, chosen, op.where, op.pc);
  if (op.status == op_status::blocked) [[unlikely]] {
    // Chosen while blocked with a deadline: the deadline passes.
    now_ = std::max(now_, *op.deadline);
    wake(op, 0, wake_reason::timeout);
  }
  return {chosen, record};
}

engine::decision engine::decide_end(bool finishing) {
  if (ending_) return {};
  if (enabled_.empty()) {
    detect_deadlock();
    return {};
  }
  const std::uint64_t step = outcome_.steps.size();
  if (step < config_.max_steps) {
    if (step >= watch_limit_) {  // the step the watch asked for
      watch_limit_ = ~std::uint64_t{0};
      limit_steps();
      if (watch_ != nullptr) watch_->at_step(step);  // may ask for another (watch_step)
      if (ending_) return {};
    }
    // The step buffer is full: room for as many steps again.
    if (step >= outcome_.steps.capacity()) outcome_.steps.reserve(std::max<std::size_t>(2 * step, 256));
    limit_steps();
    return decide(finishing);
  }
  outcome_.hit_max_steps = true;
  if (watch_ != nullptr) watch_->at_end(iteration_end::max_steps);
  if (config_.fail_on_max_steps) {
    const operation& op = ops_[running_ != 0 ? running_record_ : enabled_[0].record];
    report(bug_kind::livelock,
           fmt::format("the iteration reached {} steps with {} operation(s) still enabled "
                       "and none finishing (--max-steps, --fail-on-max-steps)",
                       config_.max_steps, enabled_.size()),
           op.where, false);
  }
  end_soon();
  return {};
}

engine::decision engine::stopped_by_strategy(std::size_t pick, std::uint64_t step, std::size_t offered) {
  outcome_.stopped = pick != strategy::stop
                         ? fmt::format("the strategy chose index {} of {} enabled operations at step {}", pick,
                                       offered, step)
                         : strategy_->stop_reason();
  end_soon();
  return {};
}

// Field by field into the vector's own storage: a step_record built as a
// temporary is written in pieces and then copied as two 16-byte words, which
// stalls on store forwarding at every decision. (Built by a constructor from
// the fields instead, emplace_back is not inlined: slower still.)
inline void engine::record_step(step_kind kind, point_kind point, object_id object, std::uint64_t value,
                                operation_id by, const std::source_location& where, std::uintptr_t pc) {
  step_record& r = outcome_.steps.emplace_back();
  r.step.kind = kind;
  r.step.point = point;
  r.step.object = object;
  r.step.value = value;
  r.operation = by;
  r.where = where;
  r.pc = pc;
  schedule_hash_ = schedule_hash_step(schedule_hash_, kind, value);
}

void engine::point(point_kind kind, object_id object, const std::source_location& where, std::uintptr_t pc) {
  at_point(kind, object, where, pc);
}

// The models' entry (heddle/model.hpp's inline scheduling_point): the whole
// decision path compiled in, so the model's frame is the only one above it.
// Its callers have seen an operation running (control.running).
[[gnu::flatten]] void point(point_kind kind, object_id object, std::source_location loc, bool lock) {
  engine::current()->at_point(kind, object, loc, 0, lock, true);
}

namespace {
// refresh_enabled(op) for the running operation, from the values at hand:
// it is enabled, so its entry is not a timed wait.
inline void list_point(pending_operation& p, point_kind kind, object_id object, bool lock) noexcept {
  p.point = kind;
  p.object = object;
  p.timed = false;
  p.lock = lock;
}
}  // namespace

inline void engine::at_point(point_kind kind, object_id object, const std::source_location& where,
                             std::uintptr_t pc, bool lock, bool checked) {
  if (!checked && running_ == 0) [[unlikely]] return;
  if (unwinding_) [[unlikely]] {
    if (std::uncaught_exceptions() == 0 && may_throw_at(kind)) throw_abort();
    return;  // a destructor running during unwinding: no more decisions
  }
  const std::uint32_t mine = running_record_;
  operation& op = ops_[mine];
  op.point = kind;
  op.object = object;
  op.where = where;
  op.pc = pc != 0 || !names_no_place(where) ? pc : interposed_call_pc(running_);
  if (lock != op.lock) [[unlikely]] {  // a point of a lock, or the first after one
    add_lock_points(lock ? 1 : -1);
    op.lock = lock;
  }
  list_point(enabled_[op.listed_at], kind, object, lock);
  reschedule(true);
}

// renew(running_, chain), then at_point(kind, object, where): the new record's
// point and its enabled entry are written once, from the arguments, and the
// decision path is compiled in as for point(). While the iteration unwinds
// nothing resumes any more, so there is no new operation: only the point's
// unwinding rule applies.
[[gnu::flatten]] void engine::renew_at_point(std::uint32_t chain, point_kind kind, object_id object,
                                             std::source_location where) {
  if (running_ == 0) [[unlikely]] return;
  if (unwinding_) [[unlikely]] return at_point(kind, object, where, 0, false, true);
  const operation_id id = continue_as<true>(running_, chain);
  running_ = id;  // the same record
  const std::uint32_t mine = running_record_;
  operation& op = ops_[mine];
  // Running, so enabled, with no wait mode and no deadline (wake() cleared
  // them): only the point is written, as at_point() does.
  op.point = kind;
  op.object = object;
  op.where = where;
  op.pc = !names_no_place(where) ? 0 : interposed_call_pc(id);
  if (op.lock) [[unlikely]] {  // the first point after a lock point
    add_lock_points(-1);
    op.lock = false;
  }
  // continue_as() moved the running operation's entry to the end.
  list_point(enabled_.back(), kind, object, false);
  reschedule(true);
}

// --- blocking ----------------------------------------------------------------

wake_reason engine::wait(std::span<const object_id> objects, wait_mode mode,
                         std::optional<virtual_time> deadline, point_kind kind,
                         const std::source_location& where) {
  return block(objects, mode, deadline, kind, where);
}

// The models' entry for a wait on one resource (heddle/model.hpp's inline
// wait), with the whole path compiled in, as for point().
[[gnu::flatten]] wake_reason wait_one(object_id object, std::source_location loc) {
  const object_id objects[] = {object};
  return engine::current()->block(objects, wait_mode::one, std::nullopt, point_kind::wait, loc);
}

inline wake_reason engine::block(std::span<const object_id> objects, wait_mode mode,
                                 std::optional<virtual_time> deadline, point_kind kind,
                                 const std::source_location& where) {
  if (running_ == 0) return wake_reason::signaled;
  if (unwinding_) {
    if (std::uncaught_exceptions() == 0) throw_abort();
    // A destructor wants to block while its operation is being unwound: the
    // operation cannot go on, so it is abandoned, suspended for good.
    abandon_running();
  }
  if (objects.empty() && !deadline && mode == wait_mode::all) return wake_reason::signaled;
  const operation_id me = running_;
  {
    operation& op = ops_[running_record_];
    op.point = kind;
    op.object = objects.empty() ? 0 : objects.front();
    op.where = where;
    op.pc = where.line() != 0 ? 0 : interposed_call_pc(me);
    add_lock_points(-static_cast<int>(op.lock));
    op.lock = false;
    op.mode = mode;
    op.waiting_on.clear();  // element by element: assign() calls memmove for one or two ids
    for (object_id o : objects) op.waiting_on.push_back(o);
    op.deadline = deadline;
    op.status = op_status::blocked;
    op.woken_by = 0;
    for (object_id o : objects) objects_[o].waiters.push_back(me);
    if (deadline) refresh_enabled(op);  // stays choosable: its deadline may pass
    else unlist_enabled(me);
  }
  reschedule();
  return ops_[running_record_].reason;  // the record's: a blocked operation may go on as another (renew)
}

namespace {
// Removes the first `value` of `v`, shifting by hand: the lists hold a few
// entries, and erase() calls memmove for them.
void erase_first(std::vector<std::uint32_t>& v, std::uint32_t value) noexcept {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i)
    if (v[i] == value) {
      for (std::size_t j = i + 1; j < n; ++j) v[j - 1] = v[j];
      v.pop_back();
      return;
    }
}
}  // namespace

void engine::unlink_waiter(operation& op) {
  for (object_id o : op.waiting_on) erase_first(objects_[o].waiters, op.id);
  op.waiting_on.clear();
}

void engine::wake(operation& op, object_id by, wake_reason reason) {
  unlink_waiter(op);
  op.status = op_status::enabled;
  op.mode = wait_mode::none;
  op.deadline.reset();
  op.reason = reason;
  op.woken_by = by;
  list_enabled(op);
}

void engine::signal_waiters(object_id object) {
  // Waking edits waiter lists, including this one: work on a copy.
  woken_scratch_.clear();
  for (operation_id w : objects_[object].waiters) woken_scratch_.push_back(w);
  for (operation_id w : woken_scratch_) {
    operation& op = record_of(w);
    if (op.status != op_status::blocked) continue;
    if (op.mode == wait_mode::all) {
      erase_first(objects_[object].waiters, w);
      erase_first(op.waiting_on, object);
      if (!op.waiting_on.empty()) continue;
    }
    wake(op, object, wake_reason::signaled);
  }
}

void engine::broadcast(object_id object) {
  if (objects_[object].waiters.empty()) {
    if (step_record* r = current_step()) r->woke = step_record::woke_nobody;
    return;
  }
  signal_waiters(object);  // leaves the waiters it looked at in woken_scratch_
  step_record* r = current_step();
  if (r == nullptr) return;
  const std::uint64_t step = outcome_.steps.size() - 1;
  const std::size_t before = outcome_.woken.size();
  // A waiter for all of several objects stays blocked until the last one.
  for (operation_id w : woken_scratch_)
    if (record_of(w).status != op_status::blocked) outcome_.woken.emplace_back(step, w);
  r->woke = outcome_.woken.size() > before ? step_record::woke_several : step_record::woke_nobody;
}

bool engine::signal_one(object_id object) {
  const auto& waiters = objects_[object].waiters;
  if (waiters.empty()) {
    if (step_record* r = current_step()) r->woke = step_record::woke_nobody;
    return false;
  }
  std::size_t index = 0;
  if (waiters.size() > 1 && running_ != 0 && !unwinding_) {
    index = choose({step_kind::choose_int, waiters.size(), false, point_kind::signal, object},
                   ops_[running_record_].where);
  }
  operation& op = record_of(objects_[object].waiters[index]);
  if (step_record* r = current_step()) r->woke = op.id;
  if (op.mode == wait_mode::all) {
    auto& list = objects_[object].waiters;
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(index));
    op.waiting_on.erase(std::find(op.waiting_on.begin(), op.waiting_on.end(), object));
    if (!op.waiting_on.empty()) return true;
  }
  wake(op, object, wake_reason::signaled);
  return true;
}

void engine::sleep_until(virtual_time t, const std::source_location& where) {
  if (running_ == 0) return;
  // A sleep whose deadline has come (sched_yield's zero sleep) is ready at
  // once: a sleep point of an enabled operation, which moves no clock.
  if (t <= now_) return at_point(point_kind::sleep, 0, where, 0);
  wait({}, wait_mode::one, std::max(t, now_), point_kind::sleep, where);
}

// --- data choices and bugs ---------------------------------------------------

std::uint64_t engine::choose(const choice& c, const std::source_location& where) {
  if (running_ == 0 || unwinding_ || ending_) return 0;
  if (outcome_.steps.size() >= config_.max_steps) {
    ops_[running_record_].where = where;
    reschedule();  // decide() applies the max-steps policy and ends the iteration
  }
  const decision_context ctx{enabled_, running_, outcome_.steps.size(), op_count_ - 1, user_state_hash_,
                             current_finished(), ops_[running_record_].point, ops_[running_record_].object, true,
                             weak_access_};
  if (c.rare && c.site == 0) [[unlikely]] {
    choice sited = c;
    sited.site = call_site(where, c.object);
    return decide_value(ctx, sited, where);
  }
  return decide_value(ctx, c, where);
}

std::uint64_t engine::call_site(const std::source_location& where, object_id object) const noexcept {
  // The source location's strings live in the binary, the same in every
  // process forked from it, so their addresses identify the site cheaply. An
  // instrumented program's call has only a code address (the running
  // operation's pc, which libheddle-rt sets at the call); that may lie in a
  // library (libstdc++'s condition_variable::wait), so the object is mixed in.
  if (where.line() != 0)
    return (reinterpret_cast<std::uintptr_t>(where.file_name()) * 0x9e3779b97f4a7c15ull) ^
           (std::uint64_t{where.line()} << 20 | where.column());
  return (ops_[running_record_].pc * 0x9e3779b97f4a7c15ull) ^ (std::uint64_t{object} << 1 | 1);
}

std::uint64_t engine::decide_value(const decision_context& ctx, const choice& c, const std::source_location& where) {
  const std::uint64_t value = strategy_->next_value(ctx, c);
  if (value >= c.bound) {
    outcome_.stopped = value != strategy::stop
                           ? fmt::format("the strategy chose {} for a choice below {}", value, c.bound)
                           : strategy_->stop_reason();
    end_soon();
    reschedule();  // to the scheduler, which unwinds this operation
  }
  record_step(c.kind, c.point, c.object, value, running_, where);
  return value;
}

}  // namespace heddle::detail
