// Race suppressions in ThreadSanitizer's file format (docs/pushbutton.md,
// "Suppressions"): one `type:pattern` a line, `#` starts a comment.
//
//   race:freelist_pop          a race with this function, file or library in
//                              either access's frames
//   race_top:stale_read        only the innermost frame of an access
//   called_from_lib:libfoo.so  every race an access of this library takes part in
//
// Patterns match as ThreadSanitizer's do: a substring of the name, `*` any
// run of characters, `^` at the start and `$` at the end anchor the match.
// ThreadSanitizer's other types (thread, mutex, signal, deadlock) are accepted
// and have nothing to match here.
//
// Contract: parse_suppressions_file() throws usage_error with one line naming
// the file, the line and the problem. The list in force for the process is
// the options' (set_active_suppressions, by explore() and the fork server);
// the race detector's report point asks it (rt/suppressions.cpp) and counts
// what matched here, per entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace heddle {
struct options;
}

namespace heddle::detail {

struct suppression {
  std::string type;     // race, race_top, called_from_lib, or another TSan type
  std::string pattern;  // as written
  std::uint32_t line = 0;
};

struct suppression_list {
  std::string file;
  std::vector<suppression> entries;
};

suppression_list parse_suppressions(std::string_view text, std::string_view file);
// Reads and parses the file; `what` names where it was given (--suppressions).
suppression_list parse_suppressions_file(std::string_view path, std::string_view what);

// ThreadSanitizer's template match: substring, `*`, `^`, `$`.
bool suppression_matches(std::string_view pattern, std::string_view text);

// One frame of an access, as suppressions see it.
struct suppression_frame {
  std::string function, file, library;
};

// The entry that suppresses a race whose accesses have these frames (each
// innermost first), or -1.
int matching_suppression(const suppression_list& list, const std::vector<suppression_frame>& first,
                         const std::vector<suppression_frame>& second);

// The list in force in this process (empty when options name no file), and
// how many races each entry suppressed here since it was set.
void set_active_suppressions(const options& o);
const suppression_list& active_suppressions();
std::uint64_t suppressed_count(std::size_t entry);
void count_suppressed(std::size_t entry);
// The verdict for a race between accesses at these two code addresses
// (matching_suppression's entry, or -1), cached in shared memory: iterations
// run in forked children, and symbolizing the same pair in every child would
// cost more than the iteration. -2: not known yet.
int cached_verdict(std::uintptr_t first_pc, std::uintptr_t second_pc);
void cache_verdict(std::uintptr_t first_pc, std::uintptr_t second_pc, int verdict);
// "3 data races suppressed (race:freelist_pop 3)"; empty when none was.
std::string describe_suppressed(const suppression_list& list, const std::vector<std::uint64_t>& counts);

}  // namespace heddle::detail
