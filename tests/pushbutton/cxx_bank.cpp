// expect: assertion balance >= 0
// Two clients withdraw from one account with std::thread and std::mutex. The
// balance check and the debit take the lock separately, so both can pass the
// check before either debits (check-then-act).
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex account_lock;
int balance = 100;

bool withdraw(int amount) {
  bool enough = false;
  {
    std::lock_guard guard(account_lock);
    enough = balance >= amount;
  }
  if (!enough) return false;
  std::lock_guard guard(account_lock);
  balance -= amount;
  return true;
}

}  // namespace

int main() {
  // main sets the globals it relies on: the program also runs many times in one
  // process (tests/rt).
  balance = 100;
  std::thread a([] { withdraw(80); });
  std::thread b([] { withdraw(80); });
  a.join();
  b.join();
  assert(balance >= 0);
  std::printf("balance %d\n", balance);
  return 0;
}
