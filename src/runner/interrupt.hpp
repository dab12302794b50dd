// Ctrl-C and SIGTERM during a run: the first one asks the run to stop
// cleanly (finish the iterations in flight, write traces and results); a
// second one ends the process as usual.
//
// Contract: while an interrupt_scope lives, SIGINT and SIGTERM set a flag
// (requested()) and restore the default action; the destructor restores what
// was installed before. Scopes do not nest (an inner one is inert). The flag
// stays set for the rest of the process: a binary of many tests stops at the
// first interrupt instead of going on with the next test, and a scope made
// after it installs nothing, so the next Ctrl-C ends the process.
#pragma once

#include <csignal>

namespace heddle::detail {

class interrupt_scope {
 public:
  interrupt_scope();
  ~interrupt_scope();
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;
  static bool requested() noexcept;
  // In a child forked while a scope lives (the push-button fork server's
  // iteration children): SIGINT and SIGTERM back to what they were before the
  // scope, so that the program's own dispositions hold there.
  static void restore_in_child() noexcept;

 private:
  bool installed_ = false;
};

}  // namespace heddle::detail
