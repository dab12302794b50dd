// The fixed twin of atomicity_violation.cpp: the check and the debit are one
// critical section.
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

void withdraw(int amount) {
  std::lock_guard g(shared_account.lock);
  if (shared_account.balance < amount) return;
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
