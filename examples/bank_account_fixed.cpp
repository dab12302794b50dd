// The fixed twin of bank_account.cpp: withdraw() checks and updates the
// balance in one critical section, so no interleaving of alice and bob can
// overdraw the account. heddle explores it and finds nothing; `make demo` and
// the CLI tests expect this test to pass.
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
    if (enough) balance_ -= amount;  // checked and taken under one lock
    mutex_.unlock();
    return enough;
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

HEDDLE_TEST(account, concurrent_withdrawals_fixed) {
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
