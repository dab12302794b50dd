// See thread_backend.hpp. The hand-off protocol: every thread sleeps on its own
// futex word until the word becomes 1, and takes the 1 (sets it back to 0) when
// it wakes; to pass control, the running thread sets the next thread's word to
// 1, wakes it, and sleeps on its own. A wake that comes before the sleep is not
// lost: the word keeps the 1 until its owner takes it.
#include "backends/thread_backend.hpp"

#include <csignal>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <system_error>

#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/real.hpp"
#include "backends/stack_pool.hpp"

namespace heddle::detail {

struct thread_backend::worker {
  std::atomic<std::uint32_t> word{0};
  pthread_t thread{};
  std::size_t stack_size = 0;
  std::unique_ptr<stack_pool> stack;  // one stack, with its guard page
  int cpu = -1;                       // pinned to this CPU; -1: the process's own mask
  // The assignment, written before the resume that starts an operation and
  // read by the worker after it wakes (the futex word orders the two).
  thread_backend* owner = nullptr;
  std::size_t slot = 0;
  bool abandoned = false;
};

namespace {

void futex_wait(std::atomic<std::uint32_t>& word) noexcept {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, 0u, nullptr, nullptr, 0);
}

void futex_wake(std::atomic<std::uint32_t>& word) noexcept {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void park(std::atomic<std::uint32_t>& word) noexcept {
  while (word.exchange(0, std::memory_order_acquire) == 0) futex_wait(word);
}

void unpark(std::atomic<std::uint32_t>& word) noexcept {
  word.store(1, std::memory_order_release);
  futex_wake(word);
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

}  // namespace

void run_worker(thread_backend::worker& w) {
  // The crash handler runs on this stack when the operation's own overflows.
  const std::size_t alternate_size = 64 * 1024;
  if (void* p = ::mmap(nullptr, alternate_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      p != MAP_FAILED) {
    stack_t alternate{};
    alternate.ss_sp = p;
    alternate.ss_size = alternate_size;
    ::sigaltstack(&alternate, nullptr);
  }
  for (;;) {
    park(w.word);
    thread_backend& b = *w.owner;
    b.adopt_control();
    const std::size_t next = b.main_(b.engine_, w.slot);
    control = {};
    // The last touch of the backend: once the next thread runs, the
    // iteration may end and the backend go away.
    unpark(b.word_to_resume(next));
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
      restore_mask_ = true;
      cpu_ = cpu;
      pin_thread(::pthread_self(), cpu);
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

void thread_backend::adopt_control() const noexcept { control = *scheduler_control_; }

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
    w->stack = std::make_unique<stack_pool>(stack_size_);
    const boost::context::stack_context sc = w->stack->allocate();
    pthread_attr_t attributes;
    ::pthread_attr_init(&attributes);
    ::pthread_attr_setstack(&attributes, static_cast<char*>(sc.sp) - sc.size, sc.size);
    const int error = HEDDLE_REAL(pthread_create)(&w->thread, &attributes, &worker_entry, w);
    ::pthread_attr_destroy(&attributes);
    if (error != 0) throw std::system_error(error, std::generic_category(), "heddle: creating an operation thread");
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
  std::atomic<std::uint32_t>& mine = word_of(from);
  unpark(word_to_resume(to));
  park(mine);
  if (from != 0) {
    adopt_control();
  } else if (hook_ != nullptr) {
    hook_(hook_argument_);
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
