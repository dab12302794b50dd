// The compact encoding of a trace: one printable line, "heddle:1:<payload>",
// that can be pasted into a bug report, a command line or a test.
//
// The payload is base64url (no padding) of a byte string: the header fields in
// JSON order as LEB128 varints and length-prefixed strings, a flag byte, the
// optional bug, the step count, then per step one byte (kind << 5 | point)
// followed by value and object as varints; last, a 32-bit FNV-1a checksum of
// everything before it, so a truncated or mangled line is rejected cleanly.
// Between the steps and the checksum, an optional tail: the backend (a string)
// and the program's arguments (a count, then strings), then, if not zero, the
// iteration timeout in milliseconds, then, if either is set, the program's
// usual exit status plus one (0: none; heddle run judges a replay's exit status
// by it) and the suppressions file. Traces from before the tail, and the crash
// handler's, may omit it (fibers, no arguments, no timeout), or its timeout,
// or the last two: each part left out reads as not set.
#include <array>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "engine/names.hpp"
#include "heddle/trace.hpp"

namespace heddle {

namespace {
constexpr std::string_view prefix = "heddle:1:";
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::uint32_t fnv1a(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : bytes) h = (h ^ c) * 16777619u;
  return h;
}

class writer {
 public:
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void s(std::string_view text) {
    u(text.size());
    out.append(text);
  }
  void byte(std::uint8_t b) { out.push_back(static_cast<char>(b)); }
  std::string out;
};

class reader {
 public:
  explicit reader(std::string_view bytes) : in_(bytes) {}
  std::uint64_t u() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = byte();
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    throw trace_error("malformed compact trace: a number is too long");
  }
  std::string s() {
    const std::uint64_t n = u();
    if (n > in_.size() - pos_) throw trace_error("malformed compact trace: truncated");
    std::string text(in_.substr(pos_, n));
    pos_ += n;
    return text;
  }
  std::uint8_t byte() {
    if (pos_ >= in_.size()) throw trace_error("malformed compact trace: truncated");
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
};

std::string base64url(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint8_t(bytes[i]) << 16) | (std::uint8_t(bytes[i + 1]) << 8) | std::uint8_t(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(alphabet[(v >> k) & 63]);
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = std::uint8_t(bytes[i]) << 16;
    if (rest == 2) v |= std::uint8_t(bytes[i + 1]) << 8;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(alphabet[(v >> 6) & 63]);
  }
  return out;
}

std::string from_base64url(std::string_view text) {
  static const std::array<int, 256> index = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
    return t;
  }();
  if (text.size() % 4 == 1) throw trace_error("malformed compact trace: truncated");
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = index[static_cast<unsigned char>(c)];
    if (v < 0) throw trace_error(fmt::format("malformed compact trace: unexpected character '{}'", c));
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}
}  // namespace

std::string to_compact(const trace& t) {
  writer w;
  const trace_header& h = t.header;
  w.s(h.heddle_version);
  w.s(h.program);
  w.s(h.test);
  w.s(h.strategy);
  w.u(h.seed);
  w.u(h.iteration);
  w.u(h.max_steps);
  w.byte(static_cast<std::uint8_t>(h.fail_on_max_steps | h.spurious_wakeups << 1 |
                                   h.spurious_cas_failures << 2 | (t.found ? 1 : 0) << 3 |
                                   static_cast<unsigned>(h.memory) << 4 | (h.detect_races ? 0 : 1) << 6 |
                                   static_cast<unsigned>(h.memory_model) << 7));
  if (t.found) {
    const bug& b = *t.found;
    w.byte(static_cast<std::uint8_t>(b.kind));
    w.s(b.message);
    w.u(b.operation);
    w.s(b.operation_name);
    w.s(b.where.file);
    w.u(b.where.line);
    w.s(b.where.function);
    w.u(b.step);
  }
  w.u(t.steps.size());
  for (const trace_step& s : t.steps) {
    w.byte(static_cast<std::uint8_t>(static_cast<unsigned>(s.kind) << 5 | static_cast<unsigned>(s.point)));
    w.u(s.value);
    w.u(s.object);
  }
  const bool run_options = h.expect_exit >= 0 || !h.suppressions.empty();
  if (h.backend != "fibers" || !h.arguments.empty() || h.iteration_timeout_ms != 0 || run_options) {
    w.s(h.backend);
    w.u(h.arguments.size());
    for (const std::string& a : h.arguments) w.s(a);
    if (h.iteration_timeout_ms != 0 || run_options) w.u(h.iteration_timeout_ms);
    if (run_options) {
      w.u(static_cast<std::uint64_t>(h.expect_exit + 1));
      w.s(h.suppressions);
    }
  }
  const std::uint32_t sum = fnv1a(w.out);
  for (int k = 0; k < 4; ++k) w.byte(static_cast<std::uint8_t>(sum >> (8 * k)));
  return std::string(prefix) + base64url(w.out);
}

trace trace_from_compact(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (!text.starts_with("heddle:")) throw trace_error("malformed trace: neither JSON nor a compact \"heddle:1:...\" line");
  if (!text.starts_with(prefix)) throw trace_error("unsupported compact trace version (this heddle reads \"heddle:1:\")");
  const std::string bytes = from_base64url(text.substr(prefix.size()));
  if (bytes.size() < 4) throw trace_error("malformed compact trace: truncated");
  const std::string_view body(bytes.data(), bytes.size() - 4);
  std::uint32_t sum = 0;
  for (int k = 0; k < 4; ++k) sum |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[body.size() + k])) << (8 * k);
  if (sum != fnv1a(body)) throw trace_error("malformed compact trace: checksum mismatch (truncated or altered)");

  reader r(body);
  trace t;
  trace_header& h = t.header;
  h.heddle_version = r.s();
  h.program = r.s();
  h.test = r.s();
  h.strategy = r.s();
  h.seed = r.u();
  h.iteration = r.u();
  h.max_steps = r.u();
  const std::uint8_t flags = r.byte();
  h.fail_on_max_steps = flags & 1;
  h.spurious_wakeups = flags & 2;
  h.spurious_cas_failures = flags & 4;
  const auto memory = static_cast<memory_policy>((flags >> 4) & 3);
  if (to_string(memory) == "unknown") throw trace_error("malformed compact trace: unknown memory policy");
  h.memory = memory;
  h.detect_races = (flags & 64) == 0;
  h.memory_model = (flags & 128) != 0 ? memory_model::rc11 : memory_model::sc;
  if (flags & 8) {
    bug b;
    const std::uint8_t kind = r.byte();
    if (to_string(static_cast<bug_kind>(kind)) == "unknown") throw trace_error("malformed compact trace: unknown bug kind");
    b.kind = static_cast<bug_kind>(kind);
    b.message = r.s();
    b.operation = static_cast<operation_id>(r.u());
    b.operation_name = r.s();
    b.where.file = r.s();
    b.where.line = static_cast<std::uint32_t>(r.u());
    b.where.function = r.s();
    b.step = r.u();
    t.found = std::move(b);
  }
  const std::uint64_t count = r.u();
  if (count > body.size()) throw trace_error("malformed compact trace: truncated");
  t.steps.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint8_t tag = r.byte();
    const unsigned kind = tag >> 5;
    const unsigned point = tag & 31;
    if (kind > 2 || point >= detail::point_kind_count)
      throw trace_error(fmt::format("malformed compact trace: step {} is invalid", i));
    trace_step s;
    s.kind = static_cast<step_kind>(kind);
    s.point = static_cast<point_kind>(point);
    s.value = r.u();
    s.object = static_cast<object_id>(r.u());
    t.steps.push_back(s);
  }
  if (!r.done()) {
    h.backend = r.s();
    if (h.backend != "fibers" && h.backend != "threads") throw trace_error("malformed compact trace: unknown backend");
    const std::uint64_t arguments = r.u();
    if (arguments > body.size()) throw trace_error("malformed compact trace: truncated");
    for (std::uint64_t i = 0; i < arguments; ++i) h.arguments.push_back(r.s());
    if (!r.done()) h.iteration_timeout_ms = r.u();
    if (!r.done()) {
      const std::uint64_t status = r.u();
      if (status > 256) throw trace_error("malformed compact trace: the expected exit status is not 0 to 255");
      h.expect_exit = static_cast<int>(status) - 1;
      h.suppressions = r.s();
    }
  }
  if (!r.done()) throw trace_error("malformed compact trace: trailing bytes");
  return t;
}

}  // namespace heddle
