#include "runner/interrupt.hpp"

namespace heddle::detail {
namespace {

volatile std::sig_atomic_t interrupted = 0;
bool active = false;
struct sigaction saved_int{}, saved_term{};  // while a scope is active

void on_interrupt(int) { interrupted = 1; }

}  // namespace

interrupt_scope::interrupt_scope() {
  if (active || interrupted != 0) return;
  active = installed_ = true;
  struct sigaction action{};
  action.sa_handler = &on_interrupt;
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the process
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &saved_int);
  ::sigaction(SIGTERM, &action, &saved_term);
}

interrupt_scope::~interrupt_scope() {
  if (!installed_) return;
  ::sigaction(SIGINT, &saved_int, nullptr);
  ::sigaction(SIGTERM, &saved_term, nullptr);
  active = false;
}

bool interrupt_scope::requested() noexcept { return interrupted != 0; }

void interrupt_scope::restore_in_child() noexcept {
  if (!active) return;
  ::sigaction(SIGINT, &saved_int, nullptr);
  ::sigaction(SIGTERM, &saved_term, nullptr);
}

}  // namespace heddle::detail
