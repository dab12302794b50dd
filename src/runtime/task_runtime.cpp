// The coroutine task runtime behind heddle/task.hpp: starting tasks as
// operations, completing them, the waits of co_await, get(), when_all and
// when_any, yield and delay, the thread pool's workers, and the opt-in check
// for tasks nobody awaited.
//
// Contract (docs/tasks.md): every resumption of a coroutine is one decision
// and a new operation (engine::renew), in its own chain after a yield or a
// delay and in the chain of the completer after a co_await (PCT^t, Mukherjee
// et al., OOPSLA 2020, section 3.2). A blocking get()/wait() is a thread's
// wait: the operation keeps its identity and its pool worker. The runtime's
// per-iteration state is reset when a new iteration (epoch) first touches it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "heddle/bug.hpp"
#include "heddle/async.hpp"
#include "heddle/task.hpp"

namespace heddle::detail::tasks {

namespace {

struct iteration_tasks {
  std::uint32_t epoch = 0;
  std::vector<task_core*> spawned;  // started by run(), for unawaited_task_check
  // Objects a task holds (an async_mutex, a full pool): their owner follows
  // the task from operation to operation.
  std::vector<object_id> held;
};
thread_local iteration_tasks tasks_state;
// The iteration (epoch) in which a task last held an object (async_hold):
// while it is not the running one, no owner follows a renewal. A plain
// thread-local, read on every task switch without tasks_state's
// initialization guard.
thread_local std::uint32_t held_epoch = 0;
// Completions so far in the iteration (task_core::completed_seq), and the
// iteration they count: plain thread-locals, which every completion reads
// without tasks_state's initialization guard (it has vectors to destroy).
struct completion_count {
  std::uint32_t epoch = 0;
  std::uint64_t count = 0;
};
thread_local completion_count completions;

[[gnu::noinline]] void start_iteration() {
  tasks_state.epoch = control.epoch;
  tasks_state.spawned.clear();
  tasks_state.held.clear();
}

// Inline: renew() asks at every resumption.
inline iteration_tasks& current() {
  if (tasks_state.epoch != control.epoch) [[unlikely]] start_iteration();
  return tasks_state;
}

engine& controller() { return *engine::current(); }

[[noreturn]] void outside_control(const char* what) {
  std::fprintf(stderr,
               "heddle: %s outside a controlled iteration: the task it waits for has not completed, and "
               "nothing else can run (run the code under heddle::explore or HEDDLE_TEST)\n",
               what);
  std::abort();
}

// Objects the task held as `op` (held) it holds as `id`. (The object of the
// task an operation runs from its start follows it in the engine:
// engine::set_follower.)
[[gnu::noinline]] void follow_held_objects(operation_id op, operation_id id) {
  if (unwinding()) return;  // nothing resumes any more
  const iteration_tasks& it = current();
  for (object_id o : it.held)
    if (control.objects[o].owner == op) control.objects[o].owner = id;
}
inline void follow_held(operation_id op, operation_id id) {
  if (held_epoch == control.epoch) [[unlikely]] follow_held_objects(op, id);
}

// engine::renew, keeping the owners of held objects current.
operation_id renew(operation_id op, std::uint32_t chain) {
  if (unwinding()) return op;  // nothing resumes any more
  const operation_id id = controller().renew(op, chain);
  follow_held(op, id);  // not unwinding
  return id;
}

void renew_running(std::uint32_t chain) { renew(control.running, chain); }

// renew_at_point() while the task holds objects in this iteration.
[[gnu::noinline]] void renew_at_point_holding(std::uint32_t chain, point_kind kind, object_id object,
                                              std::source_location loc) {
  engine& e = controller();
  // Before the decision, which may let others look at the owners. The
  // continuation's id is the next one (operation_count()).
  follow_held_objects(control.running, e.operation_count());
  e.renew_at_point(chain, kind, object, loc);
}

// renew_running(chain), then the scheduling point (kind, object): a task
// switch, in one call to the engine (engine::renew_at_point). The held
// objects' case out of line, so the common one keeps nothing in registers
// around the call and ends in a tail call where the caller does.
[[gnu::always_inline]] inline void renew_at_point(std::uint32_t chain, point_kind kind, object_id object,
                                                  std::source_location loc) {
  if (held_epoch == control.epoch) [[unlikely]] return renew_at_point_holding(chain, kind, object, loc);
  controller().renew_at_point(chain, kind, object, loc);
}

void run_body(task_core& t) {
  struct finish {
    task_core& t;
    bool holds_worker = false;
    ~finish() {
      if (holds_worker) pool_release(t.pool);
      release(t);
    }
  } guard{t};
  pool_acquire(t.pool, t.started_at);
  guard.holds_worker = true;
  t.frame.resume();  // to the task's end: its waits block this operation
}

// The index of the task to follow: when_any's first to complete, when_all's last.
std::size_t pick(std::span<task_core* const> ts, bool any) {
  std::size_t best = ts.size();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i]->done) continue;
    if (best == ts.size() || (any ? ts[i]->completed_seq < ts[best]->completed_seq
                                  : ts[i]->completed_seq > ts[best]->completed_seq))
      best = i;
  }
  return best;
}

// Takes a co_await's record out of the tasks it was registered with.
struct registration {
  await_record record;
  std::span<task_core* const> tasks;
  ~registration() {
    for (task_core* t : tasks) std::erase(t->waiters, &record);
  }
};

}  // namespace

void start(task_core& t, std::string name, std::source_location loc) {
  if (t.started) {
    misuse("heddle::run of a task that has already started (run it once, and await its handle)", loc);
    return;
  }
  t.started = true;
  t.spawned = true;
  t.started_at = loc;
  t.epoch = control.epoch;
  t.name = std::move(name);
  if (!in_control()) {
    t.frame.resume();  // runs to its end here
    return;
  }
  ++t.refs;  // the operation's
  iteration_tasks& it = current();
  it.spawned.push_back(&t);
  t.registered = true;
  const operation_id op = heddle::spawn([&t] { run_body(t); }, t.name, relation::spawn, 0);
  // Deadlock messages: "task #N held by operation op", op being the
  // operation that runs the task now (its continuations take it over).
  controller().set_follower(op, t.finished.id());
}

void complete(task_core& t) noexcept {
  t.done = true;
  // The thread's block once: each use of the thread-local would compute its
  // address again.
  const control_block& c = control;
  if (c.engine == nullptr || c.running == 0 || c.unwinding) return;
  completion_count& n = completions;
  if (n.epoch != c.epoch) [[unlikely]] n = {c.epoch, 0};  // the iteration's first
  t.completed_seq = ++n.count;
  const std::uint32_t chain = static_cast<engine*>(c.engine)->chain_of(c.running);
  t.completer_chain = chain;
  // PCT^t: each co_await this completion makes ready goes on in our chain.
  for (await_record* r : t.waiters)
    if (r->remaining > 0 && --r->remaining == 0) r->op = renew(r->op, chain);
  if (t.detached && t.error) {
    std::string what = "an exception not derived from std::exception";
    try {
      std::rethrow_exception(t.error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    flag_bug(bug_kind::uncaught_exception, fmt::format("uncaught exception in detached task '{}': {}", t.name, what),
             t.started_at);
  }
  if (hb != nullptr || c.weak_memory) [[unlikely]] hb_release(t.finished);
  detail::signal(t.finished.id());  // in control: the engine's side at once
}

namespace {
// await_task() of a task that has not completed: the awaiting operation
// blocks until it does, without its pool worker. Out of line, so that the
// co_await of a completed task keeps a small frame.
[[gnu::noinline]] void await_pending(task_core* self, task_core& t, std::source_location loc) {
  thread_pool* const pool = self != nullptr ? self->pool : nullptr;
  pool_release(pool);
  task_core* const one[] = {&t};
  registration reg{{control.running, 1}, one};
  t.waiters.push_back(&reg.record);
  const object_id ids[] = {t.finished.id()};
  while (!t.done) controller().wait(ids, wait_mode::one, std::nullopt, point_kind::join, loc);
  pool_acquire(pool, loc);
}
}  // namespace

void await_task(task_core* self, task_core& t, std::source_location loc) {
  t.awaited = true;
  const control_block& c = control;  // its address once
  if (c.engine == nullptr || c.running == 0) [[unlikely]] {
    if (!t.done) outside_control("co_await of a task");
    return;
  }
  if (t.done) renew_at_point(t.completer_chain, point_kind::join, t.finished.id(), loc);
  else await_pending(self, t, loc);
  if (hb != nullptr || control.weak_memory) [[unlikely]] hb_acquire(t.finished);
}

std::size_t await_tasks(task_core* self, std::span<task_core* const> ts, bool any, std::source_location loc) {
  for (task_core* t : ts) {
    if (!t->started) start(*t, "task", loc);
    t->awaited = true;
  }
  if (ts.empty()) return 0;
  const auto ready = [&] {
    return any ? std::ranges::any_of(ts, [](const task_core* t) { return t->done; })
               : std::ranges::all_of(ts, [](const task_core* t) { return t->done; });
  };
  if (!in_control() || control.running == 0) {
    if (!ready()) outside_control(any ? "co_await when_any" : "co_await when_all");
    return any ? pick(ts, true) : 0;
  }
  thread_pool* const pool = self != nullptr ? self->pool : nullptr;
  if (ready()) {
    task_core& followed = *ts[pick(ts, any)];
    renew_at_point(followed.completer_chain, point_kind::join, followed.finished.id(), loc);
  } else {
    pool_release(pool);
    std::vector<object_id> ids;
    std::uint32_t pending = 0;
    for (task_core* t : ts)
      if (!t->done) {
        ids.push_back(t->finished.id());
        ++pending;
      }
    registration reg{{control.running, any ? 1 : pending}, ts};
    for (task_core* t : ts)
      if (!t->done) t->waiters.push_back(&reg.record);
    while (!ready()) {
      controller().wait(ids, any ? wait_mode::any : wait_mode::all, std::nullopt, point_kind::join, loc);
      ids.clear();
      for (task_core* t : ts)
        if (!t->done) ids.push_back(t->finished.id());
    }
    pool_acquire(pool, loc);
  }
  for (task_core* t : ts)
    if (t->done) hb_acquire(t->finished);
  return any ? pick(ts, true) : 0;
}

void resumed_after_inline(task_core*, task_core& child, std::source_location loc) {
  const control_block& c = control;  // its address once
  if (c.engine == nullptr || c.running == 0) [[unlikely]] return;
  renew_at_point(child.completer_chain, point_kind::join, child.finished.id(), loc);
}

void wait_task(task_core& t, std::source_location loc) {
  if (!t.started) start(t, "task", loc);
  t.awaited = true;
  if (!in_control() || control.running == 0) {
    if (!t.done) outside_control("waiting for a task");
    return;
  }
  const object_id ids[] = {t.finished.id()};
  if (t.done) controller().point(point_kind::join, ids[0], loc);
  while (!t.done) controller().wait(ids, wait_mode::one, std::nullopt, point_kind::join, loc);
  hb_acquire(t.finished);
}

namespace {
// yield() of a task that runs on a pool: it gives its worker back meanwhile.
[[gnu::noinline]] void yield_on_pool(thread_pool* pool, std::source_location loc) {
  if (control.running == 0) return;
  pool_release(pool);
  renew_at_point(0, point_kind::yield, 0, loc);
  pool_acquire(pool, loc);
}
}  // namespace

// The common case, a task on no pool, ends in a tail call to the engine: no
// frame of its own around the decision. `self` is the awaiting task's core
// (promise_base's awaiter), never null.
void yield(task_core* self, std::source_location loc) {
  if (self->pool != nullptr) [[unlikely]] return yield_on_pool(self->pool, loc);
  if (control.running == 0) [[unlikely]] return;
  renew_at_point(0, point_kind::yield, 0, loc);
}

void delay(task_core* self, std::int64_t nanoseconds, std::source_location loc) {
  if (control.running == 0) return;
  thread_pool* const pool = self != nullptr ? self->pool : nullptr;
  pool_release(pool);
  renew_running(0);
  controller().sleep_until(controller().now() + std::max<std::int64_t>(nanoseconds, 0), loc);
  pool_acquire(pool, loc);
}

void release(task_core& t) noexcept {
  if (--t.refs == 0 && t.frame) t.frame.destroy();
}

void forget(task_core& t) noexcept {
  if (!t.registered || tasks_state.epoch != t.epoch) return;
  std::erase(tasks_state.spawned, &t);
}

void check_unawaited(std::source_location loc) noexcept {
  if (!in_control() || unwinding()) return;
  for (const task_core* t : current().spawned) {
    if (t->awaited || t->done) continue;
    flag_bug(bug_kind::liveness,
             fmt::format("task '{}' started at {}:{} was never awaited and had not completed when the test body "
                         "ended (heddle::unawaited_task_check)",
                         t->name, t->started_at.file_name(), t->started_at.line()),
             loc);
    return;
  }
}

// --- coroutine frames ------------------------------------------------------------

namespace {
// Freed coroutine frames, kept on the thread that freed them for its next
// frames: a child task that completes at once (`co_await child()`) allocated
// and freed its frame through malloc, about 145 of its 724 instructions
// (docs/performance.md). Frames up to 1 KiB, in classes of 64 bytes, each
// allocated at its class's full size, so that any frame of a class serves any
// request of it; at most 32 kept a class. Plain thread-locals (no
// initialization guard on the path); frame_cache_owner empties them when the
// thread exits.
//
// Not kept when a race detector listens (hb: task code built with
// -fsanitize=thread, whose frees libheddle-rt sees) or under
// AddressSanitizer (which must see the frees to find a use after one).
constexpr std::size_t frame_granule = 64;
constexpr std::size_t frame_classes = 16;
constexpr std::uint8_t frame_depth = 32;

struct free_frame_node {
  free_frame_node* next;
};
struct frame_lists {
  free_frame_node* head[frame_classes];
  std::uint8_t count[frame_classes];
  bool owned;   // frame_cache_owner is constructed: it frees them at thread exit
  bool closed;  // the thread is exiting: frees go to operator delete
};
thread_local frame_lists frame_cache;

struct frame_cache_owner {
  ~frame_cache_owner() {
    frame_lists& c = frame_cache;
    c.closed = true;
    for (std::size_t k = 0; k < frame_classes; ++k) {
      while (free_frame_node* n = c.head[k]) {
        c.head[k] = n->next;
        ::operator delete(n);
      }
      c.count[k] = 0;
    }
  }
};
thread_local frame_cache_owner frame_cache_cleanup;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool asan_built = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool asan_built = true;
#else
constexpr bool asan_built = false;
#endif
#else
constexpr bool asan_built = false;
#endif
}  // namespace
}  // namespace heddle::detail::tasks

// AddressSanitizer's runtime in the process (a program built with it that
// links this library built without): weak, null without it.
extern "C" __attribute__((weak)) void __asan_init();

namespace heddle::detail::tasks {
namespace {
bool frames_kept() noexcept { return !asan_built && &__asan_init == nullptr && hb == nullptr; }

// The thread's first kept frame: frame_cache_cleanup is constructed, so that
// its destructor runs when the thread exits.
[[gnu::noinline]] void own_frame_cache() noexcept {
  frame_cache.owned = true;
  (void)&frame_cache_cleanup;
}
}  // namespace

void* allocate_frame(std::size_t size) {
  const std::size_t k = (size - 1) / frame_granule;  // a frame is never empty
  if (k >= frame_classes) return ::operator new(size);
  frame_lists& c = frame_cache;
  if (free_frame_node* n = c.head[k]; n != nullptr && frames_kept()) {
    c.head[k] = n->next;
    --c.count[k];
    return n;
  }
  return ::operator new((k + 1) * frame_granule);
}

void free_frame(void* frame, std::size_t size) noexcept {
  const std::size_t k = (size - 1) / frame_granule;
  frame_lists& c = frame_cache;
  if (k >= frame_classes || c.count[k] >= frame_depth || c.closed || !frames_kept()) return ::operator delete(frame);
  if (!c.owned) [[unlikely]] own_frame_cache();
  auto* n = static_cast<free_frame_node*>(frame);
  n->next = c.head[k];
  c.head[k] = n;
  ++c.count[k];
}

void pool_acquire(thread_pool* pool, std::source_location loc) {
  if (pool == nullptr || control.running == 0) return;
  if (pool->workers_.stale()) pool->busy_ = 0;  // first use in this iteration
  const object_id ids[] = {pool->workers_.id()};
  while (pool->busy_ >= pool->size_) controller().wait(ids, wait_mode::one, std::nullopt, point_kind::acquire, loc);
  if (++pool->busy_ == pool->size_) async_hold(pool->workers_);
}

void pool_release(thread_pool* pool) noexcept {
  if (pool == nullptr || control.running == 0 || pool->workers_.stale() || pool->busy_ == 0) return;
  --pool->busy_;
  async_unhold(pool->workers_);
  signal(pool->workers_);
}

// --- async.hpp's waits ----------------------------------------------------------

wake_reason async_wait(task_core* self, const resource& r, waiter_list& waiters, point_kind kind,
                       std::optional<virtual_time> deadline, std::source_location loc) {
  thread_pool* const pool = self != nullptr ? self->pool : nullptr;
  pool_release(pool);
  await_record record{control.running, 1};
  waiters.push_back(&record);
  struct leave {
    waiter_list& w;
    await_record* r;
    ~leave() { std::erase(w, r); }
  } unregister{waiters, &record};
  const object_id ids[] = {r.id()};
  const wake_reason why = controller().wait(ids, wait_mode::one, deadline, kind, loc);
  pool_acquire(pool, loc);
  return why;
}

void async_wake(const resource& r, waiter_list& waiters) noexcept {
  if (!in_control() || control.running == 0) return;
  if (!unwinding()) {
    const std::uint32_t chain = controller().chain_of(control.running);
    for (await_record* w : waiters)
      if (w->remaining > 0 && --w->remaining == 0) w->op = renew(w->op, chain);
  }
  signal(r);
}

wake_reason async_sleep(task_core* self, const resource& r, waiter_list& waiters, std::int64_t nanoseconds,
                        std::source_location loc) {
  if (!in_control() || control.running == 0) return wake_reason::timeout;
  renew_running(0);
  return async_wait(self, r, waiters, point_kind::sleep, controller().now() + std::max<std::int64_t>(nanoseconds, 0),
                    loc);
}

void async_hold(const resource& r) {
  if (!in_control() || control.running == 0) return;
  r.set_owner(control.running);
  current().held.push_back(r.id());
  held_epoch = control.epoch;
}

void async_unhold(const resource& r) noexcept {
  if (!in_control() || r.stale()) return;
  r.set_owner(0);
  std::erase(current().held, r.id());
}

void would_block_outside_control(const char* what) {
  std::fprintf(stderr,
               "heddle: %s would block outside a controlled iteration, where nothing else can run (run the "
               "code under heddle::explore or HEDDLE_TEST)\n",
               what);
  std::abort();
}

}  // namespace heddle::detail::tasks
