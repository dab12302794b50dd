// expect: assertion assertion failed: shared_account.balance >= 0
// An account whose every field access holds the lock, yet withdraw checks the
// balance in one critical section and debits it in another: two withdrawals
// can both pass the check and overdraw. No data race, an atomicity violation.
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

struct account {
  std::mutex lock;
  int balance = 100;
  int withdrawals = 0;
};

account shared_account;

int balance() {
  std::lock_guard g(shared_account.lock);
  return shared_account.balance;
}

void withdraw(int amount) {
  if (balance() < amount) return;
  std::lock_guard g(shared_account.lock);
  shared_account.balance -= amount;
  ++shared_account.withdrawals;
}
}  // namespace

int main() {
  shared_account.balance = 100;  // fresh state, also when main runs more than once in a process
  shared_account.withdrawals = 0;
  std::thread a(withdraw, 80);
  std::thread b(withdraw, 80);
  a.join();
  b.join();
  std::printf("balance %d after %d withdrawal(s)\n", shared_account.balance, shared_account.withdrawals);
  assert(shared_account.balance >= 0);
  return 0;
}
