#include "runner/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

namespace heddle::detail {

std::string format_duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  const auto whole = static_cast<std::uint64_t>(seconds);
  if (whole < 3600) return fmt::format("{}:{:02}", whole / 60, whole % 60);
  return fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60);
}

progress_line::progress_line(const options& o, std::uint64_t total)
    : enabled_(o.progress && ::isatty(STDERR_FILENO) == 1),
      total_(total),
      budget_(o.time_budget),
      started_(std::chrono::steady_clock::now()) {}

void progress_line::draw(std::uint64_t done, std::uint64_t bugs, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  double remaining = rate > 0 ? static_cast<double>(total_ - std::min(done, total_)) / rate : -1;
  if (budget_.count() > 0) {
    const double left = std::max(0.0, std::chrono::duration<double>(budget_).count() - elapsed);
    remaining = remaining < 0 ? left : std::min(remaining, left);
  }
  const std::string line =
      fmt::format("\r\033[Kheddle: {}/{} iterations, {:.0f} it/s, {} bug{}, {} elapsed, {} left", done, total_, rate,
                  bugs, bugs == 1 ? "" : "s", format_duration(elapsed),
                  remaining < 0 ? std::string("?") : format_duration(remaining));
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  drawn_ = true;
}

void progress_line::clear() {
  if (!drawn_) return;
  constexpr char erase[] = "\r\033[K";
  (void)!::write(STDERR_FILENO, erase, sizeof erase - 1);
  drawn_ = false;
}

}  // namespace heddle::detail
