// lincheck's crash guard; see crash_guard.hpp.
#include "lincheck/crash_guard.hpp"

#include <algorithm>
#include <iterator>

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engine/engine.hpp"
#include "lincheck/scenario.hpp"

namespace heddle::lincheck::detail {
namespace {

constexpr int guarded[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
crash_guard* active = nullptr;

extern "C" void lincheck_crash_trampoline(int sig, siginfo_t*, void*) {
  if (active != nullptr) active->on_fatal_signal(sig);
}

// JSON string contents (without the quotes).
std::string escaped(const std::string& text) {
  const std::string quoted = nlohmann::json(text).dump();
  return quoted.substr(1, quoted.size() - 2);
}

// Appends to a fixed buffer without allocating; drops what does not fit.
class writer {
 public:
  writer(char* buffer, std::size_t size) : buffer_(buffer), size_(size) {}
  writer& operator<<(const char* text) noexcept {
    for (; *text != '\0' && used_ < size_; ++text) buffer_[used_++] = *text;
    return *this;
  }
  writer& operator<<(const std::string& text) noexcept { return *this << text.c_str(); }
  writer& operator<<(std::uint64_t n) noexcept {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (k > 0 && used_ < size_) buffer_[used_++] = digits[--k];
    return *this;
  }
  std::size_t size() const noexcept { return used_; }
  void write_to(int fd) const noexcept {
    std::size_t done = 0;
    while (done < used_) {
      const ssize_t n = ::write(fd, buffer_ + done, used_ - done);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  char* buffer_;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace

crash_guard::crash_guard(const executor& exec, const lincheck::options& opts, std::string test,
                         std::string result_file, crash_note* note)
    : exec_(exec), opts_(opts), test_(std::move(test)), result_file_(std::move(result_file)), note_(note) {
  // A fault in a fiber's guard page (a stack overflow) needs a stack of its own.
  alternate_stack_.resize(64 * 1024);
  stack_t stack{};
  stack.ss_sp = alternate_stack_.data();
  stack.ss_size = alternate_stack_.size();
  ::sigaltstack(&stack, &previous_stack_);
  struct sigaction action{};
  action.sa_sigaction = lincheck_crash_trampoline;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(guarded); ++i) ::sigaction(guarded[i], &action, &previous_[i]);
  previous_guard_ = active;
  active = this;
}

crash_guard::~crash_guard() {
  active = previous_guard_;
  for (std::size_t i = 0; i < std::size(guarded); ++i) ::sigaction(guarded[i], &previous_[i], nullptr);
  ::sigaltstack(&previous_stack_, nullptr);
}

void crash_guard::enter_scenario(std::size_t index, const scenario& sc) {
  first_run_ = exec_.runs_started();
  scenario_index_ = index;
  where_ = fmt::format("{}scenario {} of {}", test_.empty() ? "" : "test " + test_ + ", ", index, opts_.scenarios);
  details_ = fmt::format(
      "Scenario:\n{}\nTo run it again: the same declaration and options (seed {:#x}, strategy {}, {} runs per "
      "scenario) crash at scenario {} again.\n",
      scenario_text(exec_.names(), sc), opts_.seed, opts_.strategy, opts_.iterations, index);
  calls_.clear();
  const auto add = [&](const std::vector<actor>& actors) {
    for (const actor& a : actors) {
      if (a.id >= calls_.size()) calls_.resize(a.id + 1);
      calls_[a.id] = fmt::format("{}({})", exec_.names()[a.op], a.args->text());
    }
  };
  add(sc.init);
  for (const auto& t : sc.threads) add(t);
  add(sc.post);
  where_json_ = escaped(where_);
  details_json_ = escaped(details_);
  calls_json_.clear();
  std::size_t longest = 0;
  for (const std::string& c : calls_) {
    calls_json_.push_back(escaped(c));
    longest = std::max(longest, calls_json_.back().size());
  }
  const std::size_t needed = 2 * (where_json_.size() + details_json_.size() + longest + test_.size()) + 1024;
  if (needed > buffer_size_) {
    buffer_ = std::make_unique<char[]>(needed);
    buffer_size_ = needed;
  }
}

void crash_guard::on_fatal_signal(int sig) noexcept {
  // A second fault while reporting dies at once.
  for (int s : guarded) ::signal(s, SIG_DFL);
  // Which call was running: the engine's running operation, its thread, its call.
  std::size_t thread = no_thread;
  std::size_t call = no_actor;
  if (const auto* e = heddle::detail::engine::current(); e != nullptr) {
    thread = exec_.thread_of(e->running());
    call = exec_.position(thread);
  }
  if (note_ != nullptr) {
    note_->thread = thread;
    note_->call = call;
    note_->signal.store(sig, std::memory_order_release);
    ::raise(sig);
    return;
  }
  if (buffer_ != nullptr && handover_ != nullptr && totals_ != nullptr) {
    const crash_counts counts{exec_.runs_started(), totals_->steps, totals_->atomic_steps, totals_->memory_steps,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count()};
    if (handover_->hand_over(scenario_index_, sig, counts, exec_)) {
      ::raise(sig);
      return;
    }
  }
  if (buffer_ == nullptr) {
    ::raise(sig);
    return;
  }
  const bool in_call = call != no_actor && call < calls_.size();
  const std::uint64_t run = exec_.runs_started() - first_run_;
  // The report's first line; the record's message is the same without the prefix.
  const auto message = [&](writer& w, bool json, bool prefix) {
    w << (prefix ? "heddle lincheck: " : "") << signal_description(sig) << " in " << (json ? where_json_ : where_) << ", run " << run
      << " of the scenario, ";
    if (in_call) {
      w << "in the call " << (json ? calls_json_[call] : calls_[call]) << " [";
      if (thread == 0) w << "init/post";
      else w << "T" << static_cast<std::uint64_t>(thread);
      w << "]";
    } else {
      w << "outside the calls (building or destroying the object)";
    }
  };
  writer text(buffer_.get(), buffer_size_);
  message(text, false, true);
  text << "\n\n" << details_;
  text.write_to(STDERR_FILENO);
  if (!result_file_.empty()) {
    const int fd = ::open(result_file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      writer record(buffer_.get(), buffer_size_);
      record << "{\"test\":\"" << test_ << "\",\"status\":\"crash\",\"lincheck\":{},\"stats\":{\"iterations\":"
             << exec_.runs_started() << "},\"bugs\":[],\"bug\":{\"kind\":\"crash\",\"message\":\"";
      message(record, true, false);
      record << "\"},\"report\":\"";
      message(record, true, true);
      record << "\\n\\n" << details_json_ << "\"}\n";
      record.write_to(fd);
      ::close(fd);
    }
  }
  ::raise(sig);
}

}  // namespace heddle::lincheck::detail
