// Two clients withdraw from one account with std::thread and std::mutex; the
// check and the debit are one critical section.
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex account_lock;
int balance = 100;

bool withdraw(int amount) {
  std::lock_guard guard(account_lock);
  if (balance < amount) return false;
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
