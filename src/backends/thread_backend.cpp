// See thread_backend.hpp. The hand-off protocol: every thread sleeps on its own
// futex word until the word becomes 1, and takes the 1 (sets it back to 0) when
// it wakes; to pass control, the running thread sets the next thread's word to
// 1, wakes it, and sleeps on its own. A wake that comes before the sleep is not
// lost: the word keeps the 1 until its owner takes it.
#include "backends/thread_backend.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>
#include <utility>

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/real.hpp"
#include "backends/stack_pool.hpp"

namespace heddle::detail {

namespace {

// The crash handler runs on this stack when an operation's own overflows.
constexpr std::size_t alternate_stack_size = 64 * 1024;

}  // namespace

// A worker's memory: one mapping with a guard page at the bottom, the
// thread's stack above it, and the alternate signal stack on top, where an
// overflowing stack cannot reach it.
struct thread_backend::worker_memory {
  std::size_t stack_size = 0;         // usable by the thread, below the alternate stack
  std::unique_ptr<stack_pool> pool;   // its one stack, with the guard page
  boost::context::stack_context top;  // the whole mapping above the guard page

  explicit worker_memory(std::size_t size)
      : stack_size(size), pool(std::make_unique<stack_pool>(size + alternate_stack_size)), top(pool->allocate()) {}
  char* alternate() const noexcept { return static_cast<char*>(top.sp) - alternate_stack_size; }
  char* stack_base() const noexcept { return static_cast<char*>(top.sp) - top.size; }
};

struct thread_backend::worker {
  std::atomic<std::uint32_t> word{0};
  pthread_t thread{};
  std::size_t stack_size = 0;
  std::unique_ptr<worker_memory> memory;
  int cpu = -1;                       // pinned to this CPU; -1: the process's own mask
  // The assignment, written before the resume that starts an operation and
  // read by the worker after it wakes (the futex word orders the two).
  thread_backend* owner = nullptr;
  std::size_t slot = 0;
  bool abandoned = false;
};

namespace {

void futex_wait(std::atomic<std::uint32_t>& word) noexcept {
  real::futex(reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, 0u, nullptr);
}

void futex_wake(std::atomic<std::uint32_t>& word) noexcept {
  real::futex(reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr);
}

// Both keep the thread's errno: a futex wait fails with EAGAIN when the word
// became 1 before it slept (a busy machine makes that common) or EINTR on a
// signal, and the program, whose thread this is, may be between a failing
// call and its read of errno (a lock taken in between is a scheduling point).
void park(std::atomic<std::uint32_t>& word) noexcept {
  const int saved = errno;
  while (word.exchange(0, std::memory_order_acquire) == 0) futex_wait(word);
  errno = saved;
}

void unpark(std::atomic<std::uint32_t>& word) noexcept {
  const int saved = errno;
  word.store(1, std::memory_order_release);
  futex_wake(word);
  errno = saved;
}

// Each scheduler thread's own word; it outlives any backend the thread uses,
// so a late futex_wake on it never touches freed memory.
thread_local std::atomic<std::uint32_t> scheduler_word{0};

// Workers parked between runs, for the next backend. A spin lock, because a
// pthread mutex would reach libheddle-rt's interposer; it is taken only when
// a backend is created or destroyed, or when its own workers run out.
std::atomic_flag stash_lock = ATOMIC_FLAG_INIT;
std::vector<thread_backend::worker*>* stash = nullptr;

struct stash_guard {
  stash_guard() noexcept {
    while (stash_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~stash_guard() { stash_lock.clear(std::memory_order_release); }
};

// Memory for workers not started yet (reserve_memory), for any backend.
// Guarded by stash_lock. Unlike the stash it survives a fork: mappings do.
std::vector<std::unique_ptr<thread_backend::worker_memory>>* spare_memory = nullptr;

// A forked child has none of its parent's threads: the stash is forgotten
// there (leaked, not freed: the memory may be in use by nobody, but freeing
// it is not worth the risk in a child about to run a program).
void forget_stash_in_child() noexcept {
  stash = nullptr;
  stash_lock.clear();
}

void pin_thread(pthread_t thread, int cpu) noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::pthread_setaffinity_np(thread, sizeof set, &set);
}

cpu_set_t& process_mask() {
  static cpu_set_t mask = [] {
    cpu_set_t m;
    CPU_ZERO(&m);
    if (::sched_getaffinity(0, sizeof m, &m) != 0) {
      for (int i = 0; i < CPU_SETSIZE; ++i) CPU_SET(i, &m);
    }
    return m;
  }();
  return mask;
}

void* worker_entry(void* argument);

// The C library's pthread_create, looked up when a backend is made rather
// than when it starts its first thread: a process that forks after making
// one (the fork server) hands the answer to every child.
decltype(&::pthread_create) real_pthread_create() noexcept { return HEDDLE_REAL(pthread_create); }

}  // namespace

void run_worker(thread_backend::worker& w) {
  stack_t alternate{};
  alternate.ss_sp = w.memory->alternate();
  alternate.ss_size = alternate_stack_size;
  ::sigaltstack(&alternate, nullptr);
  for (;;) {
    park(w.word);
    thread_backend& b = *w.owner;
    b.adopt_control();
    const std::size_t next = b.main_(b.engine_, w.slot);
    control = {};
    // The last touch of the backend: once the next thread runs, the
    // iteration may end and the backend go away.
    b.resume(next);
  }
}

namespace {
void* worker_entry(void* argument) {
  run_worker(*static_cast<thread_backend::worker*>(argument));
  return nullptr;
}
}  // namespace

thread_backend::thread_backend(std::size_t stack_size, bool pin) : stack_size_(stack_size), pin_(pin) {
  static std::once_flag registered;
  std::call_once(registered, [] { ::pthread_atfork(nullptr, nullptr, &forget_stash_in_child); });
  (void)process_mask();
  (void)real_pthread_create();
}

void thread_backend::reserve_memory(std::size_t workers, std::size_t stack_size) {
  stash_guard lock;
  if (spare_memory == nullptr) spare_memory = new std::vector<std::unique_ptr<worker_memory>>;  // NOLINT: lives for the process
  for (std::size_t i = 0; i < workers; ++i) spare_memory->push_back(std::make_unique<worker_memory>(stack_size));
}

std::unique_ptr<thread_backend::worker_memory> thread_backend::take_memory(std::size_t stack_size) {
  {
    stash_guard lock;
    if (spare_memory != nullptr)
      for (auto it = spare_memory->begin(); it != spare_memory->end(); ++it)
        if ((*it)->stack_size >= stack_size) {
          std::unique_ptr<worker_memory> m = std::move(*it);
          spare_memory->erase(it);
          return m;
        }
  }
  return std::make_unique<worker_memory>(stack_size);
}

thread_backend::~thread_backend() {
  stash_guard lock;
  if (stash == nullptr) stash = new std::vector<worker*>;  // NOLINT: lives for the process
  stash->insert(stash->end(), idle_.begin(), idle_.end());
}

void thread_backend::begin_iteration(operation_main main, void* engine) {
  main_ = main;
  engine_ = engine;
  scheduler_control_ = &control;
  scheduler_word_ = &scheduler_word;
  slots_.assign(1, nullptr);
  cpu_ = -1;
  restore_mask_ = false;
  if (pin_) {
    const int cpu = ::sched_getcpu();
    if (cpu >= 0 && ::sched_getaffinity(0, sizeof scheduler_mask_, &scheduler_mask_) == 0) {
      cpu_ = cpu;
      // Already pinned there (the fork server pins itself and its children):
      // nothing to change now or to restore at the end.
      restore_mask_ = CPU_COUNT(&scheduler_mask_) != 1 || !CPU_ISSET(cpu, &scheduler_mask_);
      if (restore_mask_) pin_thread(::pthread_self(), cpu);
    }
  }
}

std::atomic<std::uint32_t>& thread_backend::word_of(std::size_t slot) {
  return slot == 0 ? *scheduler_word_ : slots_[slot]->word;
}

std::atomic<std::uint32_t>& thread_backend::word_to_resume(std::size_t slot) {
  if (slot != 0 && (slot >= slots_.size() || slots_[slot] == nullptr)) assign(slot);
  return word_of(slot);
}

void thread_backend::adopt_control() const noexcept {
  // The scheduler thread running an operation (run_first_operation_here)
  // holds the engine's block itself.
  if (&control != scheduler_control_) control = *scheduler_control_;
}

void thread_backend::resume(std::size_t slot) {
  if (slot == 0 && first_here_) {
    if (has_scheduler_hook()) call_scheduler_hook();
    std::abort();  // the hook ends the process; without one nobody could go on
  }
  unpark(word_to_resume(slot));
}

void thread_backend::run_here(std::size_t slot) {
  // This thread's record as an operation thread: no pool thread, no memory
  // of ours (and no pthread_t: it is never pinned again nor pooled); it
  // lives as long as the process, which ends with the iteration.
  auto* w = new worker;  // NOLINT: see above
  w->cpu = cpu_;
  w->owner = this;
  w->slot = slot;
  if (slot >= slots_.size()) slots_.resize(slot + 1, nullptr);
  slots_[slot] = w;
  // As run_worker, except that this thread's control block is the engine's
  // and is left as it is.
  resume(main_(engine_, slot));
  for (;;) park(w->word);  // finished: never resumed again
}

thread_backend::worker& thread_backend::assign(std::size_t slot) {
  if (idle_.empty()) {
    stash_guard lock;
    if (stash != nullptr) {
      for (auto it = stash->begin(); it != stash->end(); ++it)
        if ((*it)->stack_size >= stack_size_) {
          idle_.push_back(*it);
          stash->erase(it);
          break;
        }
    }
  }
  worker* w = nullptr;
  if (!idle_.empty()) {
    w = idle_.back();
    idle_.pop_back();
  } else {
    w = new worker;  // NOLINT: pool threads live for the process
    w->stack_size = stack_size_;
    w->memory = take_memory(stack_size_);
    pthread_attr_t attributes;
    ::pthread_attr_init(&attributes);
    ::pthread_attr_setstack(&attributes, w->memory->stack_base(), w->memory->stack_size);
    const int error = real_pthread_create()(&w->thread, &attributes, &worker_entry, w);
    ::pthread_attr_destroy(&attributes);
    if (error != 0) throw std::system_error(error, std::generic_category(), "heddle: creating an operation thread");
    // A new thread has its creator's affinity, and the creator is this
    // iteration's running thread: pinned to cpu_ when pinning.
    if (cpu_ >= 0) w->cpu = cpu_;
  }
  if (w->cpu != cpu_) {
    if (cpu_ >= 0) pin_thread(w->thread, cpu_);
    else ::pthread_setaffinity_np(w->thread, sizeof(cpu_set_t), &process_mask());
    w->cpu = cpu_;
  }
  w->owner = this;
  w->slot = slot;
  w->abandoned = false;
  if (slot >= slots_.size()) slots_.resize(slot + 1, nullptr);
  slots_[slot] = w;
  return *w;
}

void thread_backend::switch_to(std::size_t from, std::size_t to) {
  if (from == 0 && first_here_) run_here(to);  // the iteration's first switch
  std::atomic<std::uint32_t>& mine = word_of(from);
  resume(to);
  park(mine);
  if (from != 0) {
    adopt_control();
  } else if (has_scheduler_hook()) {
    call_scheduler_hook();
  }
}

void thread_backend::abandon(std::size_t slot) {
  // Its thread sleeps for good inside a destructor that tried to block while
  // being unwound; it never goes back to the pool.
  if (slot < slots_.size() && slots_[slot] != nullptr) slots_[slot]->abandoned = true;
}

void thread_backend::end_iteration() {
  for (std::size_t i = 1; i < slots_.size(); ++i)
    if (worker* w = slots_[i]; w != nullptr && !w->abandoned) idle_.push_back(w);
  slots_.assign(1, nullptr);
  if (restore_mask_) ::pthread_setaffinity_np(::pthread_self(), sizeof scheduler_mask_, &scheduler_mask_);
  restore_mask_ = false;
}

}  // namespace heddle::detail
