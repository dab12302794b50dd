// The engine: operations, resources, scheduling points, decisions, blocking,
// deadlock and step bounds, the virtual clock, and the end of an iteration.
//
// Contract (DESIGN.md section 4): exactly one operation runs at a time; control
// moves only inside a scheduling point, a wait, or when an operation finishes;
// each move is a decision the strategy takes and the trace records. Ids of
// operations and objects are assigned in first-use order within an iteration.
// An iteration ends when every operation has finished, on the first bug, on a
// deadlock, at max_steps, or when the strategy stops it; operations still alive
// are then unwound (a private exception thrown at their next resume, so
// destructors run) in reverse creation order, children before parents.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/iteration_watch.hpp"
#include "engine/strategy.hpp"
#include "heddle/bug.hpp"
#include "heddle/model.hpp"
#include "heddle/options.hpp"
#include "heddle/trace.hpp"

namespace heddle::detail {

// Thrown into an operation to unwind it at the end of an iteration. Not derived
// from std::exception, so `catch (const std::exception&)` in user code lets it pass.
struct iteration_abort {};

class fiber_backend;
class weak_memory;

struct engine_config {
  std::uint64_t max_steps = 20000;
  bool fail_on_max_steps = false;
  bool spurious_wakeups = true;
  bool spurious_cas_failures = true;
  memory_policy memory = memory_policy::shared;  // read by libheddle-rt's access hooks
  bool detect_races = true;                      // likewise
  heddle::memory_model memory_model = heddle::memory_model::sc;  // weak_memory.hpp under rc11
};

enum class op_status : std::uint8_t { enabled, blocked, finished };
enum class wait_mode : std::uint8_t { none, one, all, any };

// The record of a running line of operations: one spawned operation and the
// continuations it goes on as (engine::renew), one after the other, on one
// fiber. `id` is the operation it runs now; its predecessors' ids are labels
// that name it no more (operation_label), and are finished.
//
// Laid out for the decision path: what a scheduling point, a decision and a
// block read and write comes first and fills one cache line; the rest is
// touched when an operation is created, named, started or unwound.
struct alignas(64) operation {
  operation_id id = 0;
  op_status status = op_status::enabled;
  // The point it is paused at: what it does when next chosen.
  point_kind point = point_kind::start;
  bool lock = false;  // the point is a blocking lock of `object` (lock_point)
  wait_mode mode = wait_mode::none;
  object_id object = 0;
  // Its entry in the enabled set (engine::enabled_) while it has one: a
  // point updates that entry without looking for it.
  std::uint32_t listed_at = 0;
  std::source_location where;
  std::uintptr_t pc = 0;  // for points in instrumented code, which has no source_location

  // Blocking state; `waiting_on` holds the objects still awaited.
  std::optional<virtual_time> deadline;
  object_id woken_by = 0;
  wake_reason reason = wake_reason::signaled;
  bool started = false;
  bool unwind_requested = false;
  bool abandoned = false;
  std::vector<object_id> waiting_on;

  bool abort_in_flight = false;  // the unwind exception is propagating through it
  operation_id parent = 0;
  std::uint32_t chain = 0;
  object_id self = 0;          // the object joiners wait on
  // An object of a runtime whose owner is this operation and goes on being
  // its continuation's (renew): the task runtime's task that the operation
  // runs from its start, so that the task's object names the operation now
  // running it. 0: none.
  object_id follower = 0;
  // Its name and body, in engine::starts_: written by spawn() (and a name
  // by set_name), shared by the continuations of one coroutine (renew), so a
  // resumption copies an index, not a string, and the record stays two
  // cache lines.
  std::uint32_t start = 0;
  // Its index in engine::ops_, which is also its fiber's slot in the backend.
  std::uint32_t record = 0;
};

// What an operation id names for good, whether its record runs it still or
// has gone on as a continuation (engine::renew): the record, and what the id
// keeps when its record moves on (its chain, its parent, its name). 16 bytes
// written per coroutine resumption instead of a record.
struct operation_label {
  std::uint32_t record = 0;
  std::uint32_t chain = 0;
  operation_id parent = 0;
  std::uint32_t start = 0;
};

// What spawn() gives an operation besides its record (operation::start).
struct operation_start {
  std::string name;
  std::function<void()> body;  // empty for operation 1, which runs the test body, and once started
};

// One decision as the engine keeps it: the trace step, plus who ran (for data
// choices, who chose) and where that operation's pending point was.
//
// `woke` and the value notes say what the step did that only a reader needs:
// they are written after the decision, on the path that knows them (a
// notify_one, an atomic operation), as plain bits, never formatted there.
struct step_record {
  trace_step step;
  operation_id operation = 0;
  // A signal: the operation it woke; woke_nobody when none waited (the step
  // that makes a lost wake-up).
  operation_id woke = 0;
  std::source_location where;
  std::uintptr_t pc = 0;  // a code address to symbolize when `where` is empty
  // A load, read-modify-write or compare-exchange of an atomic: the value it
  // saw, read as `seen_kind` says (value_kind::none: no value noted). A
  // compare-exchange also notes the value it expected and whether it
  // succeeded (it saw what it expected).
  std::uint64_t value_seen = 0;
  std::uint64_t value_expected = 0;
  value_kind seen_kind = value_kind::none;
  enum class exchange : std::uint8_t { none, succeeded, failed } compare_exchange = exchange::none;
  static constexpr operation_id woke_nobody = ~operation_id{0};
  // A broadcast (notify_all) that woke one or more operations: they are in
  // iteration_outcome::woken, under this step's index.
  static constexpr operation_id woke_several = ~operation_id{0} - 1;
};

// Under rc11, a load that read a store older than the newest in modification
// order (mo), or a store placed before newer ones: what a report says about it
// (runner/timeline.cpp). weak_memory writes it on the step of its choice.
struct weak_note {
  std::size_t step = 0;  // index in iteration_outcome::steps
  bool placed = false;   // a store placed before newer ones; else a stale read
  std::memory_order order = std::memory_order_seq_cst;
  operation_id read_by = 0;  // the store read: its writer, 0 for the initial value
  std::source_location read_where;
  std::uint32_t newer = 0;  // stores after the one read (or placed) in mo
  operation_id newest_by = 0;  // the newest of them
  std::source_location newest_where;
  std::uint64_t newest_bits = 0;  // its value's bytes, as a little-endian number
  std::uint8_t newest_size = 0;
};

// Everything an iteration leaves behind, for reports, traces and strategies.
struct iteration_outcome {
  std::optional<bug> found;
  std::vector<step_record> steps;
  std::vector<std::string> operation_names;       // index = operation id
  std::vector<object_state> objects;              // index = object id (kinds, owners)
  // A deadlock: where its blocked operations block, in operation order, without
  // those that wait to join (unless all do): its root cause (runner/bug_groups.hpp).
  std::vector<source_position> blocked_at;
  // What each broadcast step (step_record::woke_several) woke: (step index,
  // operation) pairs, in step order, then in the order they had blocked.
  std::vector<std::pair<std::uint64_t, operation_id>> woken;
  bool hit_max_steps = false;
  // An atomic operation or fence named a memory order weaker than seq_cst;
  // heddle ran it as seq_cst, so the iteration covered only sequentially
  // consistent behaviour of it.
  bool weak_order = false;
  // rc11: an atomic operation or fence named an order weaker than seq_cst
  // (explored as such; statistics::plain_unseen_iterations).
  bool relaxed_atomics = false;
  // rc11: seq_cst accesses of two operations met a synchronization weaker
  // than seq_cst and seq_cst accesses of one location or a seq_cst fence.
  // The model takes happens-before between seq_cst accesses as psc there,
  // which may hide executions RC11 allows
  // (statistics::sc_in_run_order_iterations).
  bool sc_in_run_order = false;
  std::vector<weak_note> weak_notes;  // rc11: stale reads and stores placed early, by step
  // rc11: the identity of the iteration's rf and mo (weak_memory::execution), 0 under sc.
  std::uint64_t weak_execution = 0;
  // A runtime's words on a step (engine::note_step): a state machine's
  // transition, an injected fault. (index in steps, text), in step order.
  std::vector<std::pair<std::uint64_t, std::string>> notes;
  std::optional<std::string> stopped;  // the strategy stopped the iteration (reason)
  std::uint64_t max_enabled = 0;
  // The test's last heddle::state_hash of the iteration, if it called it.
  std::optional<std::uint64_t> state_hash;
  // The steps' schedule hash (engine/schedule_hash.hpp), set when the iteration ends.
  std::uint64_t schedule_hash = 0;
  std::vector<trace_step> trace_steps() const;
};

class engine {
 public:
  engine(backend& b, engine_config config);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // Runs `body` as operation 1 under `s`, to the end of the iteration. The
  // outcome stays valid until the next run (its vectors are reused).
  const iteration_outcome& run(strategy& s, const std::function<void()>& body);

  // The engine running on this OS thread, if any (the model API's entry point).
  static engine* current() noexcept { return static_cast<engine*>(control.engine); }

  // --- model-facing API (see heddle/model.hpp) ---
  operation_id running() const noexcept { return running_; }
  bool unwinding() const noexcept { return unwinding_; }
  const engine_config& config() const noexcept { return config_; }
  std::uint32_t epoch() const noexcept { return control.epoch; }

  // The rc11 store histories and views of this iteration (weak_memory.hpp).
  weak_memory& weak_memory_state();

  object_id register_object(object_kind kind);
  object_state& object(object_id id) { return objects_[id]; }

  [[gnu::flatten]] void point(point_kind kind, object_id object, const std::source_location& where,
                              std::uintptr_t pc = 0);
  [[gnu::flatten]] wake_reason wait(std::span<const object_id> objects, wait_mode mode,
                   std::optional<virtual_time> deadline, point_kind kind,
                   const std::source_location& where);
  object_id woken_by() const { return ops_[running_record_].woken_by; }
  void signal(object_id object) {
    if (!objects_[object].waiters.empty()) signal_waiters(object);  // else the common, uncontended case
  }
  // Wakes the waiters of `object` (somebody waits).
  void signal_waiters(object_id object);
  bool signal_one(object_id object);
  // A notify_all (heddle::broadcast): signal_waiters, and the running
  // operation's step notes every operation it woke, or that none waited.
  void broadcast(object_id object);
  // The value notes of the running operation's current step (step_record).
  void note_value_seen(std::uint64_t bits, value_kind kind) noexcept {
    if (step_record* r = current_step()) {
      r->value_seen = bits;
      r->seen_kind = kind;
    }
  }
  void note_compare_exchange(std::uint64_t seen, std::uint64_t expected, value_kind kind, bool succeeded) noexcept {
    if (step_record* r = current_step()) {
      r->value_seen = seen;
      r->value_expected = expected;
      r->seen_kind = kind;
      r->compare_exchange = succeeded ? step_record::exchange::succeeded : step_record::exchange::failed;
    }
  }

  operation_id spawn(std::function<void()> body, std::string name, relation rel, operation_id of);
  void join(operation_id op, const std::source_location& where);
  bool finished(operation_id op) const;
  bool current_finished() const noexcept {
    return running_ != 0 && ops_[running_record_].status == op_status::finished;
  }
  // Names the running operation (and its continuations, not its predecessors).
  void set_name(std::string name) {
    ops_[running_record_].start = labels_[running_].start = new_start(std::move(name), nullptr);
  }
  // An operation's name (shared by the continuations of one coroutine, renew).
  const std::string& name_of(operation_id id) const noexcept { return starts_[labels_[id].start].name; }

  // --- continuations (the task runtime, src/runtime/task_runtime.cpp) ---
  // Operation `op`, the running one or a blocked one, goes on as a new
  // operation in chain `chain` (PCT^t: a coroutine's resumption is an
  // operation of its own, in the chain of whatever made it ready) without a
  // new fiber or a new record: op's record (its fiber, pending point, what it
  // waits for, the object joiners wait on) runs the new id, and `op`, a
  // label of it no more, is finished. No decision is taken. Returns the new
  // operation's id.
  operation_id renew(operation_id op, std::uint32_t chain);
  // renew() of the running operation followed by point(kind, object, where),
  // in one call: what a yield or the co_await of a completed task costs. The
  // new operation's record is written once, from the values at hand.
  // `where` by value: the task runtime's call is a tail call.
  void renew_at_point(std::uint32_t chain, point_kind kind, object_id object, std::source_location where);
  // `object`'s owner is `op`, and follows op's continuations (operation::follower).
  void set_follower(operation_id op, object_id object) noexcept {
    record_of(op).follower = object;
    objects_[object].owner = op;
  }
  std::uint32_t chain_of(operation_id op) const noexcept { return op != 0 && op < op_count_ ? labels_[op].chain : 0; }

  virtual_time now() const noexcept { return now_; }
  void sleep_until(virtual_time t, const std::source_location& where);

  std::uint64_t choose(const choice& c, const std::source_location& where);
  // The code address of the call the running operation is in, for a choice
  // made next without a source location (libheddle-rt's pthread_cond_wait).
  void set_call_pc(std::uintptr_t pc) noexcept { ops_[running_record_].pc = pc; }
  // An atomic operation with an order weaker than seq_cst ran (iteration_outcome::weak_order).
  void note_weak_order() noexcept { outcome_.weak_order = true; }
  void note_relaxed_atomics() noexcept { outcome_.relaxed_atomics = true; }
  void note_sc_in_run_order() noexcept { outcome_.sc_in_run_order = true; }
  // rc11: a note on the running operation's current step (weak_note); none
  // when it has no step of its own this turn.
  void note_weak(weak_note note) {
    if (current_step() == nullptr) return;
    note.step = outcome_.steps.size() - 1;
    outcome_.weak_notes.push_back(note);
  }
  // Where the running operation's current step is, for a note that needs it.
  std::source_location step_where() noexcept {
    const step_record* r = current_step();
    return r != nullptr ? r->where : std::source_location{};
  }

  // The iteration's watch (iteration_watch.hpp), for this iteration only.
  void set_watch(iteration_watch* w) noexcept { watch_ = w; }
  iteration_watch* watch() const noexcept { return watch_; }
  // Calls the watch's at_step when the iteration reaches `step` decisions (a
  // later request replaces an earlier one; past max_steps, none).
  void watch_step(std::uint64_t step) noexcept {
    watch_limit_ = step;
    limit_steps();
  }
  // Decisions taken so far in the iteration.
  std::uint64_t step_count() const noexcept { return outcome_.steps.size(); }
  // The first step of the strategy's fair part (strategy::fair_from).
  std::uint64_t fair_from() const noexcept { return fair_from_; }
  // A note on the running operation's current step, shown in its report row
  // ("door(2): closed -> open on open_request"); none outside an operation.
  void note_step(std::string text) {
    if (running_ == 0 || unwinding_ || outcome_.steps.empty()) return;
    outcome_.notes.emplace_back(outcome_.steps.size() - 1, std::move(text));
  }

  // The test's own summary of its current state (heddle::state_hash).
  void set_state_hash(std::uint64_t value) noexcept {
    user_state_hash_ = value;
    outcome_.state_hash = value;
  }

  // The running operation is unwinding and the exception met a noexcept frame.
  bool abort_in_flight() const noexcept {
    return unwinding_ && running_ != 0 && ops_[running_record_].abort_in_flight;
  }
  // Suspends the running operation for good and returns to the scheduler.
  [[noreturn]] void abandon_running();

  // Records a bug (the first one wins). With `unwind_now`, throws
  // iteration_abort to unwind the running operation; otherwise the iteration
  // ends at the running operation's next scheduling point.
  void report(bug_kind kind, std::string message, const std::source_location& where,
              bool unwind_now);
  // The same, with a position found otherwise (a symbolized pc of instrumented code).
  void report(bug_kind kind, std::string message, source_position where, bool unwind_now);

  // For the crash handler: the iteration as far as it got, and names without
  // allocating.
  const iteration_outcome& in_flight() const noexcept { return outcome_; }
  const char* operation_name(operation_id id) const noexcept {
    return id != 0 && id < op_count_ ? name_of(id).c_str() : nullptr;
  }

  // The iteration's operations and objects so far, for the fork server's
  // child, which mirrors them to its parent (ids from 1 below the counts).
  operation_id operation_count() const noexcept { return op_count_; }
  object_id object_count() const noexcept { return object_count_; }
  // The record that runs `id`, or ran it until it went on as a continuation:
  // then the record is its successor's, and status_of(id) is finished.
  const operation& operation_at(operation_id id) const noexcept { return record_of(id); }
  op_status status_of(operation_id id) const noexcept {
    const operation& op = record_of(id);
    return op.id == id ? op.status : op_status::finished;
  }

  std::string describe_object(object_id id) const;
  std::string describe_operation(operation_id id) const;

 private:
  friend void point(point_kind kind, object_id object, std::source_location loc, bool lock);  // heddle/model.hpp
  friend wake_reason wait_one(object_id object, std::source_location loc);        // heddle/model.hpp
  // wait()'s body, compiled into wait() and wait_one().
  [[gnu::always_inline]] inline wake_reason block(std::span<const object_id> objects, wait_mode mode,
                                                  std::optional<virtual_time> deadline, point_kind kind,
                                                  const std::source_location& where);
  static std::size_t operation_entry(void* self, std::size_t slot);
  // The last step of the running operation's current turn: every step since
  // it was chosen is its own (its schedule step, then its data choices).
  step_record* current_step() noexcept {
    if (running_ == 0 || unwinding_ || outcome_.steps.empty()) return nullptr;
    step_record& r = outcome_.steps.back();
    return r.operation == running_ ? &r : nullptr;
  }
  std::size_t finish_running();

  // The decision path (point -> reschedule -> decide -> strategy -> switch) is
  // compiled into each of its few callers in engine.cpp, with the rare cases
  // out of line: each frame on it is a return after every fiber switch.
  //
  // Takes the next decision and switches to the chosen operation; returns when
  // the running operation is resumed. Ends the iteration when needed.
  // `from_point`: the running operation reached a point, so it is enabled
  // and the enabled set is not empty (decide() need not look).
  [[gnu::always_inline]] inline void reschedule(bool from_point = false);
  // A decision's outcome: the operation chosen and its record (its fiber's
  // slot); {0, 0} when the iteration must end.
  struct decision {
    operation_id id = 0;
    std::uint32_t record = 0;
  };
  // Chooses the next operation.
  // `finishing`: the running operation has just finished (finish_running).
  [[gnu::always_inline]] inline decision decide(bool finishing = false, bool from_point = false);
  // decide()'s rare outcomes: the iteration ends (ending_, nothing enabled,
  // max_steps) or the strategy stops it.
  [[gnu::noinline]] decision decide_end(bool finishing);
  [[gnu::noinline]] decision stopped_by_strategy(std::size_t pick, std::uint64_t step, std::size_t offered);
  // Between records (fiber slots), not operation ids.
  [[gnu::always_inline]] inline void switch_to(std::uint32_t from, std::uint32_t to);
  // `checked`: the caller saw an operation running (heddle/model.hpp's
  // inline points test control.running before the call).
  [[gnu::always_inline]] inline void at_point(point_kind kind, object_id object, const std::source_location& where,
                                              std::uintptr_t pc, bool lock = false, bool checked = false);
  // The iteration ends at the next decision.
  void end_soon() noexcept {
    ending_ = true;
    step_limit_ = 0;
  }
  // step_limit_ from what bounds it (see there).
  void limit_steps() noexcept {
    step_limit_ = ending_ ? 0 : std::min({watch_limit_, config_.max_steps, std::uint64_t{outcome_.steps.capacity()}});
  }
  // An enabled operation the strategy is not offered: paused at a lock of an
  // object another operation owns, where choosing it would only block it.
  bool waits_for_lock(const pending_operation& p) const noexcept {
    if (!p.lock) return false;
    const operation_id owner = objects_[p.object].owner;
    return owner != 0 && owner != p.id;
  }
  // The enabled operations without those, `first` being the first of them
  // (decide()'s rarer case), or all of them when every one waits for a lock:
  // choosing one then blocks it, and when none is left the deadlock is
  // detected and described as usual.
  [[gnu::noinline]] std::span<const pending_operation> offered_operations(std::size_t first);
  [[gnu::always_inline]] inline void record_step(step_kind kind, point_kind point, object_id object,
                                                 std::uint64_t value, operation_id by,
                                                 const std::source_location& where, std::uintptr_t pc = 0);
  void list_enabled(const operation& op);
  void unlist_enabled(operation_id id);
  [[gnu::always_inline]] inline void refresh_enabled(const operation& op);
  static pending_operation pending_of(const operation& op);
  void detect_deadlock();
  // renew()'s body (engine_internal.hpp): `old` goes on as a new operation.
  // `running`: old is the running operation, about to reach a point, whose
  // point, status and enabled entry the caller writes.
  template <bool running>
  [[gnu::always_inline]] inline operation_id continue_as(operation_id old, std::uint32_t chain);
  [[gnu::noinline]] void grow_labels();
  // What the old operation has seen, the new one has (race detector, rc11 views).
  [[gnu::noinline]] void continuation_sees(operation_id old, operation_id id);
  void wake(operation& op, object_id by, wake_reason reason);
  void unlink_waiter(operation& op);
  [[gnu::always_inline]] inline void after_resume();
  [[gnu::noinline]] void unwind_after_resume();
  [[noreturn]] void throw_abort();
  void end_iteration_from_running();
  // choose()'s identity of the site of a rare choice (choice::site).
  std::uint64_t call_site(const std::source_location& where, object_id object) const noexcept;
  std::uint64_t decide_value(const decision_context& ctx, const choice& c, const std::source_location& where);
  void unwind_all();
  void reset();

  backend& backend_;
  fiber_backend* const fibers_;  // backend_ when it is the fiber backend, switched to without a virtual call
  engine_config config_;
  std::shared_ptr<weak_memory> weak_memory_;  // made on first use under rc11
  const weak_access* weak_access_ = nullptr;  // its record of the last access, for strategies
  strategy* strategy_ = nullptr;
  bool observes_forced_ = true;  // strategy_->observes_forced_decisions()
  rng* uniform_ = nullptr;       // strategy_->uniform_draws(): decide() draws itself
  const std::function<void()>* root_body_ = nullptr;

  // Records are reused across iterations: only the first record_count_
  // records, op_count_ labels and object_count_ objects belong to the running
  // iteration.
  std::vector<operation> ops_;  // index = record (fiber slot); 0 unused (the scheduler)
  std::vector<operation_label> labels_;  // index = operation id; 0 unused
  std::uint32_t record_count_ = 1;
  operation& record_of(operation_id id) noexcept { return ops_[labels_[id].record]; }
  const operation& record_of(operation_id id) const noexcept { return ops_[labels_[id].record]; }
  // The running operation's record (running_'s), set wherever running_ is.
  std::uint32_t running_record_ = 0;
  void set_running(decision d) noexcept {
    running_ = d.id;
    running_record_ = d.record;
  }
  // Names and bodies (operation::start); the first start_count_ belong to the
  // running iteration.
  std::vector<operation_start> starts_;
  std::uint32_t start_count_ = 0;
  std::uint32_t new_start(std::string name, std::function<void()> body) {
    const std::uint32_t k = start_count_++;
    if (k == starts_.size()) starts_.emplace_back();
    starts_[k].name = std::move(name);
    starts_[k].body = std::move(body);
    return k;
  }
  std::vector<object_state> objects_;  // index = object id; 0 unused
  operation_id op_count_ = 1;
  object_id object_count_ = 1;
  // Operations of the iteration not finished (abandoned ones included): the
  // end of an iteration asks this instead of looking at every record, of
  // which a task program has one per resumption (renew).
  operation_id unfinished_ = 0;
  std::vector<pending_operation> enabled_;  // see list_enabled() for its invariant
  // Operations paused at a lock point (operation::lock): while there are
  // none, decide() offers the enabled set as it is without looking.
  int lock_points_ = 0;
  // decide()'s common case, in one test: `random`'s draw (uniform_, and
  // forced decisions not observed) with no operation at a lock point.
  bool plain_ = false;
  void add_lock_points(int delta) noexcept {
    lock_points_ += delta;
    plain_ = lock_points_ == 0 && uniform_ != nullptr && !observes_forced_;
  }
  std::vector<pending_operation> offered_;  // offered_operations()'s storage when it copies
  std::vector<operation_id> woken_scratch_;
  // The running operation and the unwinding flag live in this thread's
  // control block, where the model API reads them without a call.
  operation_id& running_ = control.running;
  bool& unwinding_ = control.unwinding;
  // The model API's view of objects_ (heddle/model.hpp), moved with it: the
  // scheduler thread's block, which the thread backend's threads copy, and
  // the running thread's own.
  object_state*& objects_view_ = control.objects;
  void publish_objects() noexcept { objects_view_ = control.objects = objects_.data(); }
  virtual_time now_ = 0;
  bool ending_ = false;  // the iteration must end at the next decision
  iteration_watch* watch_ = nullptr;  // set_watch(), for the running iteration
  // decide() takes its rare path (decide_end) at this step: 0 when ending_,
  // else the least of max_steps, the step the watch asked for (watch_step)
  // and the room the step records have. One comparison per decision for all
  // three, and below the room, recording a step never grows the buffer.
  std::uint64_t step_limit_ = 0;
  std::uint64_t watch_limit_ = ~std::uint64_t{0};  // watch_step(), until reached
  std::uint64_t fair_from_ = ~std::uint64_t{0};  // strategy_->fair_from()
  std::uint64_t user_state_hash_ = 0;
  std::uint64_t schedule_hash_ = 0;  // the steps so far, folded (schedule_hash_step)
  iteration_outcome outcome_;
};

}  // namespace heddle::detail
