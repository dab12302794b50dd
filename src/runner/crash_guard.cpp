#include "runner/crash_guard.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/stack_pool.hpp"

namespace heddle::detail {

const char* signal_description(int signal) noexcept {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGABRT: return "SIGABRT (abort: a failed assert(), std::terminate or abort())";
  }
  return "a fatal signal";
}

namespace {

constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
crash_guard* active_guard = nullptr;
struct sigaction saved_actions[std::size(fatal_signals)];
stack_t saved_stack;
constexpr std::size_t max_reserved = std::size_t{1} << 26;
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void trampoline(int signal, siginfo_t* info, void*) {
  if (active_guard != nullptr) active_guard->on_fatal_signal(signal, info != nullptr ? info->si_addr : nullptr);
  // Not ours, or done: die of the signal as the program would have.
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// A bounded, allocation-free byte writer over a reserved buffer.
struct sink {
  char* data;
  std::size_t capacity;
  std::size_t size = 0;
  bool overflow = false;
  void byte(std::uint8_t b) {
    if (size < capacity) data[size++] = static_cast<char>(b);
    else overflow = true;
  }
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      byte(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    byte(static_cast<std::uint8_t>(v));
  }
  void s(const char* text, std::size_t n) {
    u(n);
    for (std::size_t i = 0; i < n; ++i) byte(static_cast<std::uint8_t>(text[i]));
  }
  void s(const char* text) { s(text, std::strlen(text)); }
  void append(const std::string& bytes) {
    for (char c : bytes) byte(static_cast<std::uint8_t>(c));
  }
};

void put(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }
void put_number(std::uint64_t v) {
  char buffer[24];
  int i = sizeof buffer;
  do buffer[--i] = static_cast<char>('0' + v % 10); while ((v /= 10) != 0);
  (void)!::write(STDERR_FILENO, buffer + i, sizeof buffer - i);
}


// LEB128 and length-prefixed strings, as trace_compact.cpp writes them.
void append_varint(std::string& bytes, std::uint64_t v) {
  while (v >= 0x80) {
    bytes.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  bytes.push_back(static_cast<char>(v));
}

void append_string(std::string& bytes, const std::string& text) {
  append_varint(bytes, text.size());
  bytes += text;
}

// The header's bytes before the iteration index (or, with `after`, after it).
std::string encode_header(const trace_header& h, bool after) {
  std::string bytes;
  const auto u = [&](std::uint64_t v) { append_varint(bytes, v); };
  const auto s = [&](const std::string& text) { append_string(bytes, text); };
  if (after) {
    u(h.max_steps);
    return bytes;
  }
  s(h.heddle_version);
  s(h.program);
  s(h.test);
  s(h.strategy);
  u(h.seed);
  return bytes;
}

// The optional tail after the steps (trace_compact.cpp): backend, arguments.
std::string encode_tail(const trace_header& h) {
  if (h.backend == "fibers" && h.arguments.empty()) return {};
  std::string bytes;
  const auto u = [&](std::uint64_t v) { append_varint(bytes, v); };
  const auto s = [&](const std::string& text) { append_string(bytes, text); };
  s(h.backend);
  u(h.arguments.size());
  for (const std::string& a : h.arguments) s(a);
  return bytes;
}

}  // namespace

crash_guard::crash_guard(const engine& e, trace_header header, std::string directory, std::string replaying,
                         crash_note* note)
    : engine_(e), header_(std::move(header)), directory_(std::move(directory)), replaying_(std::move(replaying)),
      note_(note) {
  header_before_iteration_ = encode_header(header_, false);
  header_after_iteration_ = encode_header(header_, true);
  header_tail_ = encode_tail(header_);
  if (const auto slash = directory_.rfind('/'); slash != std::string::npos) parent_directory_ = directory_.substr(0, slash);
  const std::size_t reserve = std::min<std::size_t>(4096 + header_.max_steps * 24, max_reserved);
  raw_size_ = reserve;
  raw_.reset(new char[raw_size_]);  // default-initialized: no page is touched yet
  text_size_ = reserve / 3 * 4 + 64;
  text_.reset(new char[text_size_]);
  alternate_stack_.resize(std::max<std::size_t>(SIGSTKSZ, 64 * 1024));
  previous_ = active_guard;
  // Installed unless an outer guard's handlers are in place: a forked child
  // that reset them (the minimizer's) installs its own again.
  struct sigaction current{};
  ::sigaction(fatal_signals[0], nullptr, &current);
  installed_ = previous_ == nullptr || !(current.sa_flags & SA_SIGINFO) || current.sa_sigaction != &trampoline;
  if (installed_) {
    stack_t stack{};
    stack.ss_sp = alternate_stack_.data();
    stack.ss_size = alternate_stack_.size();
    ::sigaltstack(&stack, &saved_stack);
    struct sigaction action{};
    action.sa_sigaction = &trampoline;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(fatal_signals); ++i) ::sigaction(fatal_signals[i], &action, &saved_actions[i]);
  }
  active_guard = this;
}

crash_guard::~crash_guard() {
  active_guard = previous_;
  if (installed_) {
    for (std::size_t i = 0; i < std::size(fatal_signals); ++i) ::sigaction(fatal_signals[i], &saved_actions[i], nullptr);
    ::sigaltstack(&saved_stack, nullptr);
  }
}

void crash_guard::begin_iteration(std::uint64_t index) {
  header_.iteration = index;
  active_ = true;
}

void crash_guard::end_iteration() { active_ = false; }

void crash_guard::on_fatal_signal(int signal, const void* address) noexcept {
  if (!active_) return;
  active_ = false;  // a second fault while handling this one just dies
  const iteration_outcome& o = engine_.in_flight();
  const operation_id op = engine_.running();
  const bool overflow = (signal == SIGSEGV || signal == SIGBUS) && stack_pool::is_guard_page(address);
  const char* op_name = engine_.operation_name(op);

  // The message, built without allocating.
  char message[512];
  sink m{message, sizeof message - 1};
  const auto text = [&](const char* t) { while (*t) m.byte(static_cast<std::uint8_t>(*t++)); };
  text(overflow ? "stack overflow in operation " : "");
  if (!overflow) {
    text(signal_description(signal));
    text(" in operation ");
  }
  char digits[24];
  int d = sizeof digits;
  std::uint64_t v = op;
  do digits[--d] = static_cast<char>('0' + v % 10); while ((v /= 10) != 0);
  for (int i = d; i < static_cast<int>(sizeof digits); ++i) m.byte(static_cast<std::uint8_t>(digits[i]));
  if (op_name != nullptr && *op_name != '\0') {
    text(" (");
    text(op_name);
    text(")");
  }
  if (overflow) text(" (raise --stack-size)");
  message[m.size] = '\0';

  if (note_ != nullptr) {
    note_->kind = overflow ? bug_kind::stack_overflow : bug_kind::crash;
    note_->operation = static_cast<std::uint32_t>(op);
    std::memcpy(note_->message, message, std::min(sizeof note_->message - 1, m.size + 1));
    if (op_name != nullptr) {
      const std::size_t n = std::min(sizeof note_->operation_name - 1, std::strlen(op_name));
      std::memcpy(note_->operation_name, op_name, n);
      note_->operation_name[n] = '\0';
    }
    note_->signal.store(signal, std::memory_order_release);
    return;
  }

  put(overflow ? "\nheddle: stack_overflow: " : "\nheddle: crash: ");
  put(message);
  put("\n");
  if (!replaying_.empty()) {
    put("  reproduced by replaying ");
    put(replaying_.c_str());
    put("\n");
    return;
  }

  // The trace, in the compact encoding of trace_compact.cpp.
  sink w{raw_.get(), raw_size_};
  w.append(header_before_iteration_);
  w.u(header_.iteration);
  w.append(header_after_iteration_);
  w.byte(static_cast<std::uint8_t>(header_.fail_on_max_steps | header_.spurious_wakeups << 1 |
                                   header_.spurious_cas_failures << 2 | 1 << 3 |
                                   static_cast<unsigned>(header_.memory) << 4 |
                                   (header_.detect_races ? 0 : 1) << 6 |
                                   static_cast<unsigned>(header_.memory_model) << 7));
  w.byte(static_cast<std::uint8_t>(overflow ? bug_kind::stack_overflow : bug_kind::crash));
  w.s(message, m.size);
  w.u(op);
  w.s(op_name != nullptr ? op_name : "");
  w.s("");
  w.u(0);
  w.s("");
  w.u(o.steps.size());
  w.u(o.steps.size());
  for (const step_record& r : o.steps) {
    const trace_step& s = r.step;
    w.byte(static_cast<std::uint8_t>(static_cast<unsigned>(s.kind) << 5 | static_cast<unsigned>(s.point)));
    w.u(s.value);
    w.u(s.object);
  }
  w.append(header_tail_);
  std::uint32_t sum = 2166136261u;
  for (std::size_t i = 0; i < w.size; ++i) sum = (sum ^ static_cast<std::uint8_t>(raw_[i])) * 16777619u;
  for (int k = 0; k < 4; ++k) w.byte(static_cast<std::uint8_t>(sum >> (8 * k)));
  if (w.overflow || directory_.empty()) {
    put(w.overflow ? "heddle: the trace is too long to save from a crash handler\n"
                   : "heddle: no --out directory: the schedule was not saved\n");
    return;
  }
  sink t{text_.get(), text_size_};
  for (char c : std::string_view("heddle:1:")) t.byte(static_cast<std::uint8_t>(c));
  std::size_t i = 0;
  for (; i + 3 <= w.size; i += 3) {
    const std::uint32_t x = (std::uint8_t(raw_[i]) << 16) | (std::uint8_t(raw_[i + 1]) << 8) | std::uint8_t(raw_[i + 2]);
    for (int k = 18; k >= 0; k -= 6) t.byte(static_cast<std::uint8_t>(alphabet[(x >> k) & 63]));
  }
  if (const std::size_t rest = w.size - i; rest > 0) {
    std::uint32_t x = std::uint8_t(raw_[i]) << 16;
    if (rest == 2) x |= std::uint8_t(raw_[i + 1]) << 8;
    t.byte(static_cast<std::uint8_t>(alphabet[(x >> 18) & 63]));
    t.byte(static_cast<std::uint8_t>(alphabet[(x >> 12) & 63]));
    if (rest == 2) t.byte(static_cast<std::uint8_t>(alphabet[(x >> 6) & 63]));
  }
  t.byte('\n');

  if (!parent_directory_.empty()) ::mkdir(parent_directory_.c_str(), 0777);
  ::mkdir(directory_.c_str(), 0777);
  char path[4096];
  for (unsigned n = 1; n < 100000; ++n) {
    sink p{path, sizeof path - 1};
    for (char c : directory_) p.byte(static_cast<std::uint8_t>(c));
    for (char c : std::string_view("/bug-")) p.byte(static_cast<std::uint8_t>(c));
    char num[12];
    int k = sizeof num;
    unsigned x = n;
    do num[--k] = static_cast<char>('0' + x % 10); while ((x /= 10) != 0);
    for (int j = k; j < static_cast<int>(sizeof num); ++j) p.byte(static_cast<std::uint8_t>(num[j]));
    for (char c : std::string_view(".trace")) p.byte(static_cast<std::uint8_t>(c));
    path[p.size] = '\0';
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      break;
    }
    (void)!::write(fd, text_.get(), t.size);
    ::close(fd);
    put("  the schedule that led here is saved in ");
    put(path);
    put(" (");
    put_number(o.steps.size());
    put(" steps)\n  replay: heddle replay ");
    put(path);
    put("\n");
    return;
  }
  put("heddle: could not save the schedule\n");
}

}  // namespace heddle::detail
