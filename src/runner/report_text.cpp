// heddle::report_text (heddle/explore.hpp): a bug report formatted the first
// time it is read. Finding a bug is then no dearer than the iterations that
// found it (issue 14, docs/performance.md): the runner keeps what the report
// needs (the traces, the engine's annotations) and formats only when the
// report is printed, saved in a summary, or read by the caller.
//
// Contract: copies share one state, so a result copied out of explore()
// formats its report once, whichever copy is read first, and every copy
// reads the same text. Reading is thread-safe. A report_text made from a
// string is formatted already.
#include <atomic>
#include <mutex>
#include <ostream>

#include "heddle/explore.hpp"

namespace heddle {

struct report_text::state {
  std::once_flag once;
  std::function<std::string()> format;  // empty once it ran, or for a text given formatted
  std::string text;
  std::atomic<bool> done{false};
};

report_text::report_text(std::string text) : state_(std::make_shared<state>()) {
  state_->text = std::move(text);
  state_->done.store(true, std::memory_order_release);
}

report_text report_text::deferred(std::function<std::string()> format) {
  report_text r;
  r.state_ = std::make_shared<state>();
  r.state_->format = std::move(format);
  return r;
}

const std::string& report_text::str() const {
  static const std::string none;
  if (!state_) return none;
  if (!state_->done.load(std::memory_order_acquire)) {
    std::call_once(state_->once, [s = state_.get()] {
      if (s->format) s->text = s->format();
      s->format = nullptr;  // what it captured (traces, annotations) is no longer needed
      s->done.store(true, std::memory_order_release);
    });
  }
  return state_->text;
}

bool report_text::formatted() const noexcept { return !state_ || state_->done.load(std::memory_order_acquire); }

std::ostream& operator<<(std::ostream& out, const report_text& r) { return out << r.str(); }

}  // namespace heddle
