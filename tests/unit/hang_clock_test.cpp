// The clock --iteration-timeout judges a child by (runner/hang_clock.hpp):
// wall time while the child is blocked, its CPU time while it runs, and not
// the time it waits for a CPU other processes hold.
#include "runner/hang_clock.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace {

using heddle::detail::hang_clock;
using namespace std::chrono_literals;

// A forked child running `body`, killed and reaped when the test ends.
class child_process {
 public:
  template <typename F>
  explicit child_process(F body) : pid_(::fork()) {
    if (pid_ == 0) {
      body();
      ::_exit(0);
    }
  }
  ~child_process() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

[[noreturn]] void spin() {
  for (unsigned long n = 0;; ++n) asm volatile("" : "+r"(n));
}

// The last CPU this process may run on.
int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  int last = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) last = cpu;
  return last;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

// A child that sleeps for good, once it does.
void wait_until_asleep(pid_t pid) {
  while (heddle::detail::sample_process_cpu(pid).runnable) std::this_thread::sleep_for(1ms);
}

// Until `starved` runs as SCHED_IDLE and `hog` has run on `cpu` since.
void wait_until_starving(pid_t starved, pid_t hog, int cpu) {
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  const auto on_cpu = [cpu](pid_t pid) {
    cpu_set_t set;
    CPU_ZERO(&set);
    return ::sched_getaffinity(pid, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
  };
  while (::sched_getscheduler(starved) != SCHED_IDLE || !on_cpu(starved) || !on_cpu(hog)) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the children did not set themselves up";
    std::this_thread::sleep_for(1ms);
  }
  const std::uint64_t hog_cpu = heddle::detail::sample_process_cpu(hog).cpu_ns;
  while (heddle::detail::sample_process_cpu(hog).cpu_ns <= hog_cpu + 5'000'000) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the hog did not run";
    std::this_thread::sleep_for(1ms);
  }
}

// How long after its restart the clock first says expired, polled every
// 5 ms; `give_up` if it never does by then.
std::chrono::milliseconds time_to_expire(pid_t pid, std::chrono::milliseconds limit,
                                         std::chrono::milliseconds give_up) {
  hang_clock watch(limit);
  const auto start = hang_clock::clock::now();
  watch.restart(pid, start);
  for (;;) {
    const auto now = hang_clock::clock::now();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
    if (watch.expired(now) || waited >= give_up) return waited;
    std::this_thread::sleep_for(5ms);
  }
}

TEST(hang_clock, a_blocked_child_expires_at_the_limit_of_wall_time) {
  const child_process sleeper([] {
    for (;;) ::pause();
  });
  const auto waited = time_to_expire(sleeper.pid(), 200ms, 5s);
  EXPECT_GE(waited, 200ms);
  EXPECT_LT(waited, 2s);
}

TEST(hang_clock, a_looping_child_expires_once_it_used_the_cpu) {
  const child_process looper([] { spin(); });
  const auto waited = time_to_expire(looper.pid(), 200ms, 6s);
  EXPECT_GE(waited, 200ms);
  // It needs 50 ms of CPU after the first 100 ms: at once on an idle machine,
  // a little later on a loaded one; never the 6 s of a starved child.
  EXPECT_LT(waited, 3s);
}

TEST(hang_clock, a_child_waiting_for_a_cpu_is_not_hung_until_the_starvation_limit) {
  // A busy process at the usual priority, and the child as SCHED_IDLE on the
  // same CPU: ready to run all the time, it gets a fraction of a percent.
  // The hog is declared last so that it is killed first: the starved child
  // then gets the CPU it needs to die.
  const int cpu = last_allowed_cpu();
  const child_process starved([cpu] {
    pin_to(cpu);
    const sched_param none{};
    ::sched_setscheduler(0, SCHED_IDLE, &none);
    spin();
  });
  const child_process hog([cpu] {
    pin_to(cpu);
    spin();
  });
  // Start the clock once both are in place: the child idle-scheduled and the
  // hog running on its CPU. On a loaded machine either may wait a while for a
  // CPU after fork, and until then the child spins at the usual priority.
  wait_until_starving(starved.pid(), hog.pid(), cpu);
  // A wall clock would have called it hung at 50 ms.
  const std::uint64_t cpu_before = heddle::detail::sample_process_cpu(starved.pid()).cpu_ns;
  const auto waited = time_to_expire(starved.pid(), 50ms, 4s);
  const std::uint64_t cpu_used = heddle::detail::sample_process_cpu(starved.pid()).cpu_ns - cpu_before;
  EXPECT_LT(waited, 4s);
  if (waited < 50ms * hang_clock::starved_factor) {  // 1.5 s
    // Before the starvation limit only if the machine did give it a quarter
    // of the limit in CPU time (a loop that ran): the clock's contract. A
    // loaded machine's scheduler sometimes does, even to an idle-class task.
    EXPECT_GE(cpu_used, 12'500'000u) << "expired at " << waited.count() << " ms having used " << cpu_used
                                     << " ns of CPU: starvation counted as a hang";
  }
}

TEST(hang_clock, progress_restarts_it) {
  const child_process sleeper([] {
    for (;;) ::pause();
  });
  wait_until_asleep(sleeper.pid());
  hang_clock watch(100ms);
  const auto start = hang_clock::clock::now();
  watch.restart(sleeper.pid(), start);
  EXPECT_FALSE(watch.expired(start + 60ms));
  watch.restart(sleeper.pid(), start + 60ms);
  EXPECT_FALSE(watch.expired(start + 150ms));
  EXPECT_TRUE(watch.expired(start + 170ms));
}

TEST(hang_clock, a_child_that_is_gone_counts_as_blocked) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  hang_clock watch(100ms);
  const auto start = hang_clock::clock::now();
  watch.restart(pid, start);
  EXPECT_FALSE(watch.expired(start + 90ms));
  EXPECT_TRUE(watch.expired(start + 100ms));
}

}  // namespace
