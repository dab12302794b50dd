// libstdc++'s C++20 synchronization (g++ 12): std::jthread with stop_token,
// std::latch, std::barrier, std::counting_semaphore (and a timed acquire),
// atomic::wait/notify, std::async (async and deferred), std::shared_mutex,
// std::condition_variable_any waiting with a stop_token. libstdc++ waits on
// the futex system call (modelled). Under --memory-model rc11, std::barrier
// deadlocked at iteration 1 (random, seed 1): the futex model's comparison
// and wake-ups were outside the model's seq_cst order and views
// (src/rt/futex.cpp). The flag below is stored seq_cst: libstdc++ 12's
// notify after a release store can lose its wake-up under the C++ model (and
// x86's store buffer), which heddle finds (tests/pushbutton/wm_futex_waiters.c).
// With -DPLANT_LOST_UPDATE a writer adds outside its lock: a data race.
#include <atomic>
#include <barrier>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <latch>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <stop_token>
#include <thread>

int main() {
  using namespace std::chrono_literals;
  // latch + barrier with a completion function
  {
    std::latch started(2);
    int phases = 0;
    std::barrier sync(2, [&]() noexcept { ++phases; });
    long slots[2] = {};
    auto body = [&](int i) {
      started.count_down();
      for (int r = 0; r < 2; ++r) {
        slots[i] += r + 1;
        sync.arrive_and_wait();
      }
    };
    std::jthread a(body, 0), b(body, 1);
    started.wait();
    a.join();
    b.join();
    assert(phases == 2 && slots[0] == 3 && slots[1] == 3);
  }
  // counting_semaphore, timed acquire
  {
    std::counting_semaphore<2> sem(0);
    int got = 0;
    std::jthread p([&] { got = 5; sem.release(); });
    sem.acquire();
    assert(got == 5);
    bool timed = sem.try_acquire_for(10ms);
    assert(!timed);
  }
  // atomic wait/notify
  {
    std::atomic<int> flag{0};
    int data = 0;
    std::jthread t([&] {
      data = 9;
      flag.store(1, std::memory_order_seq_cst);
      flag.notify_one();
    });
    flag.wait(0, std::memory_order_acquire);
    assert(data == 9);
  }
  // jthread stop_token + condition_variable_any
  {
    std::mutex m;
    std::condition_variable_any cv;
    int woke = 0;
    std::jthread t([&](std::stop_token st) {
      std::unique_lock lk(m);
      bool pred = cv.wait(lk, st, [] { return false; });
      assert(!pred);
      woke = 1;
    });
    t.request_stop();
    t.join();
    assert(woke == 1);
  }
  // std::async both policies + shared_mutex
  {
    std::shared_mutex sm;
    long value = 0;
    auto writer = [&](long n) {
      std::unique_lock lk(sm);
#ifdef PLANT_LOST_UPDATE
      lk.unlock();
      long seen = value;
      std::this_thread::yield();
      value = seen + n;
#else
      value += n;
#endif
      return n;
    };
    auto f1 = std::async(std::launch::async, writer, 1);
    auto f2 = std::async(std::launch::async | std::launch::deferred, writer, 2);
    auto f3 = std::async(std::launch::deferred, writer, 4);
    long r = f1.get() + f2.get() + f3.get();
    std::shared_lock lk(sm);
    assert(r == 7 && value == 7);
  }
  std::puts("ok");
  return 0;
}
