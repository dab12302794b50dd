// The bank account of bank_account.cpp, written with coroutine tasks
// (docs/tasks.md), for the CLI tests and as a starting point for task code.
//
// withdraw() reads the balance, then awaits an audit call (a heddle::delay
// standing for I/O), then writes the balance it read minus the amount. No
// thread is involved, yet the await is a point where another task's
// withdrawal may run: both see 100, both withdraw, and the balance ends at 30
// or 40 after 130 went out, a lost update. task_account_fixed.cpp holds an
// async_mutex across the await.
#include <chrono>

#include <heddle/heddle.hpp>
#include <heddle/task.hpp>
#include <heddle/test.hpp>

namespace {

struct account {
  int balance = 100;
};

heddle::task<void> audit() { co_await heddle::delay(std::chrono::milliseconds(5)); }

heddle::task<bool> withdraw(account& a, int amount) {
  const int seen = a.balance;
  if (seen < amount) co_return false;
  co_await audit();  // the bug: another withdrawal may run here
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
