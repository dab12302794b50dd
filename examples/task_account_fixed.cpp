// task_account.cpp's fixed twin: the balance is read and written under an
// async_mutex held across the await, so a withdrawal sees the balance the
// other one left.
#include <chrono>

#include <heddle/async.hpp>
#include <heddle/heddle.hpp>
#include <heddle/task.hpp>
#include <heddle/test.hpp>

namespace {

struct account {
  heddle::async_mutex mutex;
  int balance = 100;
};

heddle::task<void> audit() { co_await heddle::delay(std::chrono::milliseconds(5)); }

heddle::task<bool> withdraw(account& a, int amount) {
  auto lock = co_await a.mutex.scoped_lock();
  const int seen = a.balance;
  if (seen < amount) co_return false;
  co_await audit();
  a.balance = seen - amount;
  co_return true;
}

}  // namespace

HEDDLE_TEST(task_account, concurrent_withdrawals) {
  account shared;
  auto alice = heddle::run(withdraw(shared, 70), "alice");
  auto bob = heddle::run(withdraw(shared, 60), "bob");
  heddle::wait_all(alice, bob);
  const int withdrawn = (alice.get() ? 70 : 0) + (bob.get() ? 60 : 0);
  HEDDLE_ASSERT(shared.balance + withdrawn == 100);
}
