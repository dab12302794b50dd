// Bugs that need a schedule of a particular shape: one that needs three
// preemptions, one that needs a thread to run 50 steps uninterrupted (PCT finds
// it, uniform random practically never does), and a livelock of two polite
// threads that only the max-steps bound ends.
#include <array>

#include "heddle/explore.hpp"
#include "heddle/mutex.hpp"
#include "heddle/shared.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "programs.hpp"

namespace heddle_bugs {
namespace {

// --- 11. a bug that needs three preemptions ----------------------------------
// A two-party handshake through one state word, meant to run as two separate
// sessions: each thread advances the state only from the value it expects.
// State 4 is reachable only through A < C < B < D, and each of those three
// switches leaves the previous thread with work still to do: three preemptions.

template <bool guarded>
void handshake() {
  heddle::shared<int> state{0};
  heddle::shared<int> epilogue{0};
  heddle::mutex session;  // the fix: each thread's steps form one session
  heddle::thread first([&] {
    heddle::this_thread::set_name("first");
    if (guarded) session.lock();
    if (state == 0) state = 1;  // A
    if (state == 2) state = 3;  // B
    epilogue++;
    if (guarded) session.unlock();
  });
  heddle::thread second([&] {
    heddle::this_thread::set_name("second");
    if (guarded) session.lock();
    if (state == 1) state = 2;  // C
    if (state == 3) state = 4;  // D
    if (guarded) session.unlock();
  });
  first.join();
  second.join();
  HEDDLE_ASSERT_MSG(state != 4, "the handshake completed across two sessions (state 4)");
}

void three_preemptions_buggy() { handshake<false>(); }
void three_preemptions_fixed() { handshake<true>(); }

// --- 12. a long uninterrupted run: PCT finds it, random rarely does ----------
// A progress reporter assumes it starts while the 50-step job is unfinished.
// The bug needs the job to run all 50 steps before the reporter's first one: a
// uniform random scheduler interrupts it with probability 1 - 2^-50, while PCT
// runs the higher-priority thread until a (rare) change point. The check runs
// on main (operation 1), so a test can count hits by catching there.

constexpr int job_steps = 50;
constexpr int reporter_steps = 100;  // so PCT's change points mostly fall after the job

template <bool tolerant>
void long_run() {
  heddle::shared<int> progress{0};
  heddle::shared<int> reported{0};
  int observed = -1;  // written by the reporter, read by main after joining it
  heddle::thread job([&] {
    heddle::this_thread::set_name("job");
    for (int i = 1; i <= job_steps; ++i) progress = i;
  });
  heddle::thread reporter([&] {
    heddle::this_thread::set_name("reporter");
    observed = progress;
    for (int i = 1; i <= reporter_steps; ++i) reported = i;
  });
  job.join();
  reporter.join();
  if (tolerant) {
    // The fix drops the assumption: a finished job is a valid observation.
    HEDDLE_ASSERT_MSG(observed >= 0 && observed <= job_steps, "the reporter saw an impossible progress value");
  } else {
    HEDDLE_ASSERT_MSG(observed < job_steps, "the reporter started only after the whole 50-step job had finished");
  }
}

void pct_long_run_buggy() { long_run<false>(); }
void pct_long_run_fixed() { long_run<true>(); }

// --- 15. livelock: two polite threads back off forever -----------------------
// Each thread that finds the other at the door steps back and waits for the
// other to pass. When both arrive together both step back, and both spin
// forever: every operation stays enabled and none finishes, until max_steps.

template <bool locked>
void corridor() {
  std::array<heddle::shared<bool>, 2> present;
  std::array<heddle::shared<bool>, 2> passed;
  heddle::mutex door;  // the fix: take turns through a real lock instead of politeness
  auto walk = [&](int me) {
    heddle::this_thread::set_name(me == 0 ? "alice" : "bob");
    const int other = 1 - me;
    if (locked) {
      door.lock();
      passed[me] = true;
      door.unlock();
      return;
    }
    present[me] = true;
    if (present[other]) {
      present[me] = false;  // "after you"
      while (!passed[other]) heddle::this_thread::yield();
      present[me] = true;
    }
    passed[me] = true;
    present[me] = false;
  };
  heddle::thread a(walk, 0), b(walk, 1);
  a.join();
  b.join();
}

void livelock_buggy() { corridor<false>(); }
void livelock_fixed() { corridor<true>(); }

}  // namespace

std::vector<program> schedule_programs() {
  using heddle::bug_kind;
  return {
      {.name = "three_preemptions",
       .description = "a handshake reaches its bad state only through three preemptions",
       .buggy = three_preemptions_buggy,
       .fixed = three_preemptions_fixed,
       .kind = bug_kind::assertion,
       .message = "across two sessions",
       .strategy = "pct:3",
       .iterations = 10'000},
      {.name = "pct_long_uninterrupted_run",
       .description = "a job must run 50 steps uninterrupted before a reporter starts",
       .buggy = pct_long_run_buggy,
       .fixed = pct_long_run_fixed,
       .kind = bug_kind::assertion,
       .message = "after the whole 50-step job",
       .strategy = "pct:3",
       .iterations = 10'000},
      {.name = "polite_livelock",
       .description = "two polite threads both step back at a door and wait for each other forever",
       .buggy = livelock_buggy,
       .fixed = livelock_fixed,
       .kind = bug_kind::livelock,
       .message = "reached 200 steps",
       .strategy = "random",
       .iterations = 10'000,
       .max_steps = 200,
       .fail_on_max_steps = true},
  };
}

}  // namespace heddle_bugs
