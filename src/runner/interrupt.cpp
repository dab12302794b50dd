#include "runner/interrupt.hpp"

namespace heddle::detail {
namespace {

volatile std::sig_atomic_t interrupted = 0;
bool active = false;

void on_interrupt(int) { interrupted = 1; }

}  // namespace

interrupt_scope::interrupt_scope() {
  if (active || interrupted != 0) return;
  active = installed_ = true;
  struct sigaction action{};
  action.sa_handler = &on_interrupt;
  action.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the process
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &saved_int_);
  ::sigaction(SIGTERM, &action, &saved_term_);
}

interrupt_scope::~interrupt_scope() {
  if (!installed_) return;
  ::sigaction(SIGINT, &saved_int_, nullptr);
  ::sigaction(SIGTERM, &saved_term_, nullptr);
  active = false;
}

bool interrupt_scope::requested() noexcept { return interrupted != 0; }

}  // namespace heddle::detail
