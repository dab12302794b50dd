// See suppressions.hpp. The matching follows ThreadSanitizer's
// (sanitizer_common's TemplateMatch and the race suppression check), so a
// file written for TSAN_OPTIONS=suppressions=... works here unchanged.
#include "runner/suppressions.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "heddle/explore.hpp"

namespace heddle::detail {
namespace {

constexpr std::string_view known_types[] = {"race", "race_top", "called_from_lib", "thread",
                                            "mutex", "signal", "deadlock"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `*`-separated pieces in order, the first anchored by `^`, the last by `$`.
bool glob(std::string_view pattern, std::string_view text) {
  const bool at_start = pattern.starts_with('^');
  if (at_start) pattern.remove_prefix(1);
  const bool at_end = pattern.ends_with('$');
  if (at_end) pattern.remove_suffix(1);
  std::size_t from = 0;
  bool first = true;
  while (true) {
    const std::size_t star = pattern.find('*');
    const std::string_view piece = pattern.substr(0, star);
    const bool last = star == std::string_view::npos;
    if (last && at_end) {
      if (text.size() < from + piece.size() || !text.ends_with(piece)) return false;
      return !(first && at_start) || text.size() == piece.size();
    }
    if (first && at_start) {
      if (!text.substr(from).starts_with(piece)) return false;
      from += piece.size();
    } else if (!piece.empty()) {
      const std::size_t found = text.find(piece, from);
      if (found == std::string_view::npos) return false;
      from = found + piece.size();
    }
    if (last) return true;
    pattern.remove_prefix(star + 1);
    first = false;
  }
}

bool frame_matches(std::string_view pattern, const suppression_frame& f) {
  return (!f.function.empty() && suppression_matches(pattern, f.function)) ||
         (!f.file.empty() && suppression_matches(pattern, f.file)) ||
         (!f.library.empty() && suppression_matches(pattern, f.library));
}

// Never destroyed (see engine/call_site.hpp: this library may be in a
// program twice).
suppression_list& active_list() {
  static suppression_list* const list = new suppression_list();  // NOLINT: never freed
  return *list;
}
// The counts live in a shared mapping: iterations run in forked children (the
// fork server's, explore()'s workers), and what they suppressed counts in the
// summary of the process that set the list.
std::span<std::atomic<std::uint64_t>> counts;

// The verdict cache, in the same shared mapping after the counts. A slot is
// claimed (empty -> writing), filled, then published (ready); a reader only
// trusts a ready slot. Full or contended: the caller symbolizes again.
struct verdict_slot {
  std::atomic<std::uint32_t> state;  // 0 empty, 1 writing, 2 ready
  std::int32_t verdict;
  std::uint64_t first, second;
};
constexpr std::size_t verdict_slots = 4096;
constexpr std::size_t probes = 16;
verdict_slot* verdicts = nullptr;
std::size_t mapped_bytes = 0;
void* mapping = nullptr;

std::size_t slot_of(std::uintptr_t a, std::uintptr_t b) {
  return static_cast<std::size_t>((a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full)) % verdict_slots;
}

}  // namespace

bool suppression_matches(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return false;
  return glob(pattern, text);
}

suppression_list parse_suppressions(std::string_view text, std::string_view file) {
  suppression_list list;
  list.file = std::string(file);
  std::uint32_t number = 0;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = trim(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    ++number;
    if (line.empty() || line.starts_with('#')) continue;
    const std::size_t colon = line.find(':');
    const auto bad = [&](std::string_view why) {
      return usage_error(fmt::format("{}:{}: {} (suppressions are type:pattern lines, such as race:my_function)",
                                     file, number, why));
    };
    if (colon == std::string_view::npos) throw bad(fmt::format("'{}' has no type", line));
    const std::string_view type = trim(line.substr(0, colon));
    const std::string_view pattern = trim(line.substr(colon + 1));
    bool known = false;
    for (std::string_view k : known_types) known = known || k == type;
    if (!known)
      throw bad(fmt::format("unknown suppression type '{}' (known: race, race_top, called_from_lib, thread, "
                            "mutex, signal, deadlock)",
                            type));
    if (pattern.empty()) throw bad(fmt::format("'{}' has an empty pattern", line));
    list.entries.push_back({std::string(type), std::string(pattern), number});
  }
  return list;
}

suppression_list parse_suppressions_file(std::string_view path, std::string_view what) {
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in)
    throw usage_error(fmt::format("cannot read suppressions file '{}' ({}): {}", path, what, std::strerror(errno)));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw usage_error(fmt::format("cannot read suppressions file '{}' ({}): it is a directory", path, what));
  return parse_suppressions(text, path);
}

int matching_suppression(const suppression_list& list, const std::vector<suppression_frame>& first,
                         const std::vector<suppression_frame>& second) {
  for (std::size_t i = 0; i < list.entries.size(); ++i) {
    const suppression& s = list.entries[i];
    bool hit = false;
    for (const auto* frames : {&first, &second}) {
      if (s.type == "race") {
        for (const suppression_frame& f : *frames) hit = hit || frame_matches(s.pattern, f);
      } else if (s.type == "race_top") {
        hit = hit || (!frames->empty() && frame_matches(s.pattern, frames->front()));
      } else if (s.type == "called_from_lib") {
        // The innermost frame is the access itself: made by the library.
        hit = hit || (!frames->empty() && !frames->front().library.empty() &&
                      suppression_matches(s.pattern, frames->front().library));
      }
    }
    if (hit) return static_cast<int>(i);
  }
  return -1;
}

void set_active_suppressions(const options& o) {
  suppression_list& active = active_list();
  if (o.suppressions.empty()) {
    active = {};
  } else if (o.suppressions != active.file) {
    active = parse_suppressions_file(o.suppressions, "--suppressions");
  }
  if (mapping != nullptr) ::munmap(mapping, mapped_bytes);
  mapping = nullptr;
  counts = {};
  verdicts = nullptr;
  if (active.entries.empty()) return;
  const std::size_t count_bytes = (active.entries.size() * sizeof(std::atomic<std::uint64_t>) + 63) / 64 * 64;
  mapped_bytes = count_bytes + verdict_slots * sizeof(verdict_slot);
  void* p = ::mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map suppression counts: {}", std::strerror(errno)));
  mapping = p;
  counts = {static_cast<std::atomic<std::uint64_t>*>(p), active.entries.size()};
  verdicts = reinterpret_cast<verdict_slot*>(static_cast<char*>(p) + count_bytes);
}

int cached_verdict(std::uintptr_t first_pc, std::uintptr_t second_pc) {
  if (verdicts == nullptr) return -2;
  const std::size_t home = slot_of(first_pc, second_pc);
  for (std::size_t i = 0; i < probes; ++i) {
    verdict_slot& slot = verdicts[(home + i) % verdict_slots];
    const std::uint32_t state = slot.state.load(std::memory_order_acquire);
    if (state == 0) return -2;
    if (state == 2 && slot.first == first_pc && slot.second == second_pc) return slot.verdict;
  }
  return -2;
}

void cache_verdict(std::uintptr_t first_pc, std::uintptr_t second_pc, int verdict) {
  if (verdicts == nullptr) return;
  const std::size_t home = slot_of(first_pc, second_pc);
  for (std::size_t i = 0; i < probes; ++i) {
    verdict_slot& slot = verdicts[(home + i) % verdict_slots];
    std::uint32_t empty = 0;
    if (!slot.state.compare_exchange_strong(empty, 1, std::memory_order_acq_rel)) continue;
    slot.first = first_pc;
    slot.second = second_pc;
    slot.verdict = verdict;
    slot.state.store(2, std::memory_order_release);
    return;
  }
}

const suppression_list& active_suppressions() { return active_list(); }

std::uint64_t suppressed_count(std::size_t entry) {
  return entry < counts.size() ? counts[entry].load(std::memory_order_relaxed) : 0;
}

void count_suppressed(std::size_t entry) {
  if (entry < counts.size()) counts[entry].fetch_add(1, std::memory_order_relaxed);
}

std::string describe_suppressed(const suppression_list& list, const std::vector<std::uint64_t>& hits) {
  std::uint64_t total = 0;
  std::string each;
  for (std::size_t i = 0; i < list.entries.size() && i < hits.size(); ++i) {
    if (hits[i] == 0) continue;
    total += hits[i];
    each += fmt::format("{}{}:{} {}", each.empty() ? "" : ", ", list.entries[i].type, list.entries[i].pattern, hits[i]);
  }
  if (total == 0) return {};
  return fmt::format("{} data race{} suppressed ({})", total, total == 1 ? "" : "s", each);
}

}  // namespace heddle::detail
