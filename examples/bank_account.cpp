// A bank account with an interleaving bug, for `make demo` and the CLI tests.
//
// withdraw() checks the balance in one critical section and takes the money in
// a second one. Each section is correctly locked, yet the two together are not
// atomic: alice and bob can both see 100 in the account, both decide they may
// withdraw, and the balance ends at -30. A stress test rarely hits the window;
// heddle finds it in a few iterations and prints the interleaving that leads
// there. bank_account_fixed.cpp is the same test with one critical section.
#include <heddle/heddle.hpp>
#include <heddle/test.hpp>

namespace {

class account {
 public:
  explicit account(int balance) : balance_(balance) {}

  // Takes `amount` if the account holds enough; returns whether it did.
  bool withdraw(int amount) {
    mutex_.lock();
    const bool enough = balance_ >= amount;
    mutex_.unlock();
    if (!enough) return false;
    // The bug: another withdrawal may run here, between the check and the update.
    mutex_.lock();
    balance_ -= amount;
    mutex_.unlock();
    return true;
  }

  int balance() {
    mutex_.lock();
    const int value = balance_;
    mutex_.unlock();
    return value;
  }

 private:
  heddle::mutex mutex_;
  int balance_;
};

}  // namespace

HEDDLE_TEST(account, concurrent_withdrawals) {
  account shared(100);
  heddle::thread alice([&] {
    heddle::this_thread::set_name("alice");
    shared.withdraw(70);
  });
  heddle::thread bob([&] {
    heddle::this_thread::set_name("bob");
    shared.withdraw(60);
  });
  alice.join();
  bob.join();
  const int balance = shared.balance();
  HEDDLE_ASSERT(balance >= 0);
}
