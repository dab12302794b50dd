// What the pthread surface of libheddle-rt shares (DESIGN.md section 9): how an
// interposer is defined, when it is under control, the side tables that hold
// the model object of each pthread object, the controlled threads, and virtual
// deadlines.
//
// Contract of every interposed function: outside control (before main, in the
// fork server's parent, in threads heddle does not run, in the scheduler)
// it is the C library's own (HEDDLE_REAL). Under control the program's
// pthread object (pthread_mutex_t, sem_t...) is only a key: the model state
// lives in a side table keyed by its address, created on first use (objects
// set up by a static initializer are never "initialized") and forgotten when
// the iteration's epoch changes, so in-process tests do not leak state from
// one iteration into the next. Only one operation runs at a time under
// control, so the tables need no lock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/call_site.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/select.h>
#include <time.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "heddle/bug.hpp"
#include "heddle/model.hpp"

// Defines the interposer of C function `name`. The C++ declaration the system
// headers give it is noexcept, but an interposer must let the engine's unwind
// exception (and pthread_exit's) pass, so the definition is a function of
// another C++ name that carries the C symbol name.
#define HEDDLE_RT_DEFINE(ret, name, params) \
  HEDDLE_RT_DECLARE(ret, name, params);      \
  extern "C" ret heddle_rt_##name params
// Declares it, for a caller in another file (the C11 functions call the
// pthread ones this way, so the unwind exceptions may pass).
#define HEDDLE_RT_DECLARE(ret, name, params) \
  extern "C" ret heddle_rt_##name params __asm__(#name) __attribute__((visibility("default")))

namespace heddle::rt {

// Scheduling points and bugs of this layer carry no source location
// (std::source_location{}): one would name the runtime's own code, not the
// program's call. The interposed functions mark the program's call site
// instead (HEDDLE_CALL_SITE), which reports symbolize.

// True when the caller is an operation of a controlled iteration.
inline bool controlled() noexcept { return in_control() && current_operation() != 0; }

// True when `pc` is in libheddle-rt's own code: heddle's own calls through
// an interposer (its allocations, the crash report it writes) are not the
// program's. runtime_code finds that code on first use (dl_iterate_phdr);
// runtime_code_found only answers once it was found (for the allocations
// the loader makes before dl_iterate_phdr may be used).
bool runtime_code(std::uintptr_t pc);
bool runtime_code_found(std::uintptr_t pc) noexcept;

// Signals the program sends itself (posix_signals.cpp). A signal sent to a
// thread that is neither the sender nor waiting for signals is delivered at
// the receiver's next call into the runtime: the number of threads with such
// a delivery pending, and the delivery (call_site's constructor calls it).
extern std::uint32_t deferred_signal_deliveries;
void deliver_deferred_signals();
inline void signal_delivery_point() {
  if (deferred_signal_deliveries != 0) [[unlikely]] deliver_deferred_signals();
}
// A new thread's signal mask is its creator's (pthread_create).
void inherit_signal_mask(operation_id parent, operation_id child);
// The C library's functions the signal surface calls, looked up now (the
// fork server, before its first child).
void resolve_signal_functions() noexcept;
// The fixed-address mapping of the program's thread records, made now (the
// fork server, before its first child).
void map_thread_records() noexcept;
// pthread_kill of a controlled thread: 0 or an errno value.
int send_signal_to_thread(operation_id op, int sig);

// For the length of an interposed call, the program's call site: the points
// the call makes are placed there in reports (engine/call_site.hpp). The
// outermost interposed call wins (mtx_lock calls pthread_mutex_lock).
class call_site {
 public:
  explicit call_site(void* pc) noexcept {
    if (!controlled()) return;
    op_ = current_operation();
    std::vector<std::uintptr_t>& pcs = detail::interposed_call_pcs();
    if (op_ >= pcs.size()) pcs.resize(std::max<std::size_t>(op_ + 1, 64));
    saved_ = pcs[op_];
    if (saved_ == 0) pcs[op_] = reinterpret_cast<std::uintptr_t>(pc);
    signal_delivery_point();
  }
  ~call_site() {
    if (op_ != 0 && op_ < detail::interposed_call_pcs().size()) detail::interposed_call_pcs()[op_] = saved_;
  }
  call_site(const call_site&) = delete;
  call_site& operator=(const call_site&) = delete;

 private:
  operation_id op_ = 0;
  std::uintptr_t saved_ = 0;
};
#define HEDDLE_CALL_SITE() const ::heddle::rt::call_site heddle_call_site_(__builtin_return_address(0))

// Every side table, so that memory allocated again can drop their entries.
class side_table_base {
 public:
  side_table_base();
  side_table_base(const side_table_base&) = delete;
  side_table_base& operator=(const side_table_base&) = delete;
  virtual void forget(std::uintptr_t address, std::uintptr_t size) = 0;

 protected:
  ~side_table_base();  // leaves the list (a table destroyed at exit)
};

// [address, address + size) is memory allocated (or mapped, or unmapped) again
// under control: the program objects there are new ones, whatever objects the
// same addresses held earlier in the iteration. A pthread_mutex_t set up by
// PTHREAD_MUTEX_INITIALIZER (a std::mutex) in a freed block is never destroyed,
// and without this a new one at its address would keep its model and object
// id. Which addresses the C library's heap reuses differs between backends
// (one arena per OS thread under threads, one for every operation under
// fibers), so object ids, and the strategies that learn from them, would too.
void forget_objects(std::uintptr_t address, std::uintptr_t size);

// A side table: model state of type T per address of a program object, for
// the running iteration only. Entries are boxed so their addresses (and the
// resources in them) stay put while the table grows.
template <class T>
class side_table final : public side_table_base {
 public:
  T* find(const void* key) {
    sync();
    const auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second.get();
  }
  template <class... Args>
  T& emplace(const void* key, Args&&... args) {
    sync();
    auto& slot = map_[key];
    if (slot) retired_.push_back(std::move(slot));
    else keys_.insert(key);
    slot = std::make_unique<T>(std::forward<Args>(args)...);
    return *slot;
  }
  void erase(const void* key) {
    sync();
    if (const auto it = map_.find(key); it != map_.end()) {
      retired_.push_back(std::move(it->second));
      map_.erase(it);
      keys_.erase(key);
    }
  }
  void forget(std::uintptr_t address, std::uintptr_t size) override {
    sync();
    if (keys_.empty()) return;
    for (auto it = keys_.lower_bound(reinterpret_cast<const void*>(address));
         it != keys_.end() && reinterpret_cast<std::uintptr_t>(*it) - address < size;) {
      const auto entry = map_.find(*it);
      retired_.push_back(std::move(entry->second));
      map_.erase(entry);
      it = keys_.erase(it);
    }
  }

 private:
  void sync() {
    if (epoch_ == detail::control.epoch) return;
    map_.clear();
    keys_.clear();
    retired_.clear();
    epoch_ = detail::control.epoch;
  }
  std::unordered_map<const void*, std::unique_ptr<T>> map_;
  std::set<const void*> keys_;  // map_'s keys, in order, for forget()
  // Entries destroyed or re-initialized during the iteration: a thread the
  // program left blocked in one (undefined behaviour the checks may not have
  // caught) still finds it in memory; freed when the iteration is over.
  std::vector<std::unique_ptr<T>> retired_;
  std::uint32_t epoch_ = 0;
};

// One controlled thread: what pthread_t designates under control (its value is
// the record's address).
struct thread_record {
  operation_id op = 0;
  void* result = nullptr;
  bool finished = false;
  bool detached = false;
  bool joined = false;
  bool being_joined = false;
  // Deferred cancellation.
  bool cancel_enabled = true;
  bool cancel_async = false;  // recorded; acted on at cancellation points like deferred
  bool cancel_pending = false;
  bool exiting = false;  // pthread_exit or a cancellation is unwinding the thread
  // The C cleanup handlers (pthread_cleanup_push in C without -fexceptions):
  // glibc's unwind buffers, innermost last.
  std::vector<void*> c_cleanup;
  // pthread_setspecific values, by key.
  std::unordered_map<pthread_key_t, void*> specific;
  // The destructors of the thread_local objects the thread constructed
  // (__cxa_thread_atexit_impl), in registration order; run last to first
  // when it exits, before the key destructors, as glibc does.
  std::vector<std::pair<void (*)(void*), void*>> thread_local_destructors;
  std::string name;
  // Signalled when the thread finishes (its joiner waits on it).
  resource done{object_kind::operation};
  // What it is blocked in, so a cancel can wake it: the thread it joins, the
  // condition variable it waits on, the semaphore it waits for.
  thread_record* joining = nullptr;
  void* waiting_cond = nullptr;
  const resource* waiting_semaphore = nullptr;
};

// The record of the running operation (created for operation 1 on first use).
thread_record& self();
// The start routine of the thread operation `op` runs (0: none known), for
// its name in reports.
void note_start_routine(operation_id op, std::uintptr_t pc);
std::uintptr_t start_routine_of(operation_id op) noexcept;
// The record `t` designates in this iteration, or null.
thread_record* find_thread(pthread_t t);
// Acts on a pending cancellation if the caller's cancelability allows it:
// unwinds the thread (does not return then).
void cancellation_point();
// Starts unwinding the running thread with `value` as its result (pthread_exit).
[[noreturn]] void exit_thread(void* value);

// The mutex model (pthread_mutex.cpp), for condition variables: lock and
// unlock with pthread's results, and whether the caller holds the mutex.
int lock_mutex(pthread_mutex_t* m, bool blocking, std::optional<virtual_time> deadline);
int unlock_mutex(pthread_mutex_t* m);
bool mutex_held_by_caller(pthread_mutex_t* m);

// Wakes every waiter of the condition variable at `cond` (a cancel wakes its
// target this way).
void wake_cond_waiters(void* cond);

// Runs the body of a program's main thread under control: pthread_exit in it
// ends it like a return, after which it waits for every other thread, as a
// process whose main thread exits does.
void run_main_thread(const std::function<void()>& body);

// The virtual deadline of an absolute time on `clock` (the program reads real
// clocks): now() plus the distance from the clock's current real time.
virtual_time deadline_at(clockid_t clock, const timespec& abstime);
// The virtual deadline `d` from now.
virtual_time deadline_after(const timespec& d);

// Waits on file descriptors that never block the only operation allowed to
// run (posix_descriptors.cpp): poll()'s and select()'s, with a timeout in
// milliseconds (negative: none), for a controlled caller.
int wait_on_poll(pollfd* fds, nfds_t count, int timeout);
int wait_on_select(int count, fd_set* read, fd_set* write, fd_set* except, std::int64_t timeout_ms);
// A timespec timeout in milliseconds, rounded up; null: -1 (none).
std::int64_t millis(const timespec* t);
// A timespec the C library would reject (EINVAL).
bool invalid(const timespec& t);

// Reports a bug found at the call (API misuse, a thread that waits for
// itself) and ends the iteration. Most interposed functions are declared
// noexcept by the C library's headers, so a C++ caller has no unwind entry for
// them: the bug is recorded first and the unwinding starts at the next
// scheduling point, where the engine treats a noexcept frame as the end of
// the operation.
[[noreturn]] void report(bug_kind kind, std::string message);
inline void report_misuse(std::string message) { report(bug_kind::api_misuse, std::move(message)); }
inline void report_self_deadlock(std::string message) { report(bug_kind::deadlock, std::move(message)); }

// "operation 3" or "operation 3 (name)": how messages name a thread.
std::string describe(operation_id op);

}  // namespace heddle::rt
