#include "runner/workers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/bug_groups.hpp"
#include "runner/hang_clock.hpp"
#include "runner/html_report.hpp"
#include "runner/interrupt.hpp"
#include "runner/progress.hpp"
#include "runner/report.hpp"
#include "runner/shards.hpp"
#include "runner/statistics.hpp"
#include "runner/step_log.hpp"
#include "strategies/strategies.hpp"

namespace heddle::detail {
namespace {

using nlohmann::json;

constexpr std::size_t ring_size = 4096;
constexpr std::uint64_t no_slot = ~std::uint64_t{0};

// Shared by the parent and every worker.
struct run_shared {
  std::atomic<std::uint64_t> next_slot{0};  // the first slot of the next block to claim
  std::atomic<int> stop{0};
  // The lowest slot known to end with a bug (stop_on_first_bug): no worker
  // starts a slot above it, since the run will stop at or below it.
  std::atomic<std::uint64_t> bound{no_slot};
};

void lower_bound_to(std::atomic<std::uint64_t>& bound, std::uint64_t slot) {
  std::uint64_t seen = bound.load(std::memory_order_acquire);
  while (slot < seen && !bound.compare_exchange_weak(seen, slot, std::memory_order_acq_rel)) {
  }
}

// The parent's answer to a worker that found a bug with a signature not
// decided yet (a candidate): finalize it, or only count it.
enum verdict : int { verdict_none = 0, verdict_pending = 1, verdict_go = 2, verdict_drop = 3 };

// The slots a (replacement) worker runs before it claims blocks: it runs
// [warm_from, first) only for its strategy to learn, then [first, end).
struct assignment {
  std::uint64_t warm_from = 0;
  std::uint64_t first = 0;
  std::uint64_t end = 0;
};

// One worker's channel to the parent; its step_log follows it in the region.
struct channel {
  std::atomic<std::uint64_t> in_flight{0};   // slot + 1 of the iteration running, 0 between iterations
  std::atomic<std::uint64_t> started_ns{0};  // when it started (CLOCK_MONOTONIC)
  std::atomic<std::uint64_t> written{0};     // records published (ring head)
  std::atomic<std::uint64_t> read{0};        // records the parent took (ring tail)
  std::atomic<int> verdict{verdict_none};    // on the worker's candidate bug
  // With verdict_go under --out: the path the parent reserved for the bug's
  // trace, numbered in the order bugs are decided (as in process), not in the
  // order workers finish minimizing them.
  char trace_file[4096];
  crash_note note;
  iteration_record ring[ring_size];
};

constexpr std::size_t channel_bytes = (sizeof(channel) + 63) / 64 * 64;

std::uint64_t monotonic_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing to tell
    done += static_cast<std::size_t>(n);
  }
}

json group_message(const bug_group& g) {
  return {{"t", "bug"},        {"signature", g.signature}, {"iteration", g.first_iteration},
          {"trace", to_json(g.trace)}, {"minimized_trace", to_json(g.minimized_trace)},
          {"trace_file", g.trace_file}, {"report", g.report.str()}};
}

bug_group group_from_message(const json& m) {
  bug_group g;
  g.signature = m.at("signature").get<std::string>();
  g.first_iteration = m.at("iteration").get<std::uint64_t>();
  g.trace = trace_from_json(m.at("trace").get<std::string>());
  g.minimized_trace = trace_from_json(m.at("minimized_trace").get<std::string>());
  g.bug = g.trace.found.value_or(bug{});
  g.trace_file = m.at("trace_file").get<std::string>();
  g.report = m.at("report").get<std::string>();
  g.count = 1;
  return g;
}

std::vector<unsigned> allowed_cpus() {
  std::vector<unsigned> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (unsigned c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

struct worker {
  std::unique_ptr<shared_region> region;
  channel* chan = nullptr;
  std::unique_ptr<step_log> log;
  unsigned cpu = 0;
  pid_t pid = -1;
  int pipe = -1;
  std::string pending;  // a message not complete yet
  bool running = false;
  bool hung = false;  // killed by the watchdog
  // Judges the iteration in flight, started at `watched_start` (ns).
  hang_clock watch{std::chrono::nanoseconds::zero()};
  std::uint64_t watched_start = 0;
  std::uint64_t last_index = no_slot;  // index of the last record taken from the ring
};

// A bug whose signature no earlier slot has decided yet. It is decided once
// every lower slot has finished: the lowest slot of a signature is finalized
// (and, with stop_on_first_bug, only the lowest slot of all), as in process.
struct candidate {
  std::string signature;
  std::size_t worker = 0;  // waiting for the verdict, unless `lost`
  bool lost = false;       // the worker died in the iteration: the parent finalizes it
  bug found;
  std::vector<trace_step> steps;
  bool hung = false;
};

class parent {
 public:
  explicit parent(const run_context& run);
  result run();

 private:
  void spawn(worker& w, assignment assigned);
  [[noreturn]] void work(worker& w, const assignment& assigned, int to_parent);
  // Handles every complete message the worker's pipe holds.
  void read_messages(worker& w);
  void handle(const json& m, worker& w);
  void drain(worker& w);
  void reap(worker& w, int status);
  void lost_iteration(worker& w, std::uint64_t slot, int status);
  void finalize_lost(std::uint64_t slot, candidate& c, const std::string& trace_file);
  // Takes the records of the lowest slots into the statistics, in slot order,
  // and decides the candidates every lower slot of which has finished (all
  // of them once the run is stopping).
  void advance();
  void decide(std::uint64_t slot, candidate& c);
  std::uint64_t slot_of(std::uint64_t index) const { return shard_slot_of_index(opts_, window_, index); }
  std::uint64_t block_end(std::uint64_t slot) const { return std::min((slot / block_ + 1) * block_, slots_); }
  void stop() { shared_->stop.store(1, std::memory_order_release); }
  bool stopping() const { return shared_->stop.load(std::memory_order_acquire) != 0; }

  const run_context& run_;
  const options& opts_;
  std::uint64_t window_;  // the strategy's learning window
  std::uint64_t block_;   // slots a worker claims at once: one window
  std::uint64_t slots_;
  bool systematic_;
  std::string description_;
  shared_region shared_region_;
  run_shared* shared_;
  signature_table signatures_;
  std::vector<worker> workers_;
  std::vector<assignment> requeued_;      // what replacements run first
  std::set<std::uint64_t> run_again_;     // slots already requeued once
  std::set<std::uint64_t> crashed_;       // slots whose iteration ended its worker
  // Records not yet in the statistics: those above a slot still running.
  std::map<std::uint64_t, iteration_record> pending_records_;
  std::uint64_t prefix_ = 0;  // every slot below it is in the statistics
  std::map<std::uint64_t, std::string> bug_slots_;       // slot -> signature of its bug
  std::map<std::uint64_t, candidate> candidates_;        // by slot, undecided
  std::map<std::string, std::uint64_t> decided_;         // signature -> the slot finalized for it
  std::optional<std::uint64_t> first_bug_;               // stop_on_first_bug: the slot the run stops at
  bug_collector bugs_;
  statistics_accumulator stats_;
  result res_;
  std::optional<progress_line> progress_;
  std::uint64_t schedules_ = 0;
  bool executions_ = false;  // schedules_ counts rc11 executions (dpor)
  std::uint64_t bounded_choices_ = 0;  // likewise, from the systematic strategy's worker
  std::uint64_t held_wait_iterations_ = 0;  // likewise
  std::string error_;
};

parent::parent(const run_context& run)
    : run_(run),
      opts_(run.opts),
      window_(make_strategy(run.opts.strategy, {.fair_after = run.opts.fair_after})->learning_window()),
      block_(block_size(run.opts, window_)),
      slots_(shard_slots(run.opts, window_)),
      description_(make_strategy(run.opts.strategy, {.fair_after = run.opts.fair_after})->describe()),
      shared_region_(sizeof(run_shared) + signature_table::bytes()),
      shared_(static_cast<run_shared*>(shared_region_.data())),
      signatures_(static_cast<char*>(shared_region_.data()) + sizeof(run_shared)),
      bugs_(run.opts) {
  shared_->bound.store(no_slot);  // the region comes zeroed, not constructed
  systematic_ = is_systematic(description_);
  unsigned n = opts_.parallel;
  if (systematic_) {
    if (opts_.shard_index > 0) {
      if (opts_.print_report)
        std::fprintf(stderr, "heddle: %s explores one schedule after another and cannot be sharded: shard 0 runs "
                     "it, shard %llu runs nothing\n", description_.c_str(),
                     static_cast<unsigned long long>(opts_.shard_index));
      slots_ = 0;
    } else if (n > 1 && opts_.print_report) {
      std::fprintf(stderr, "heddle: %s explores one schedule after another: it runs in one worker\n",
                   description_.c_str());
    }
    n = 1;
  }
  // More workers than blocks would have nothing to do.
  n = static_cast<unsigned>(std::min<std::uint64_t>(n, std::max<std::uint64_t>((slots_ + block_ - 1) / block_, 1)));
  const std::vector<unsigned> cpus = allowed_cpus();
  workers_.resize(n);
  for (unsigned k = 0; k < n; ++k) {
    worker& w = workers_[k];
    w.region = std::make_unique<shared_region>(channel_bytes + step_log::bytes_for(opts_.max_steps + 1));
    w.chan = static_cast<channel*>(w.region->data());
    w.log = std::make_unique<step_log>(static_cast<char*>(w.region->data()) + channel_bytes, opts_.max_steps + 1);
    w.cpu = cpus[k % cpus.size()];
  }
}

void parent::spawn(worker& w, assignment assigned) {
  // A replacement starts from a clean channel; the region itself is reused.
  w.chan->in_flight.store(0);
  w.chan->started_ns.store(0);
  w.watch = hang_clock(opts_.iteration_timeout);
  w.watched_start = 0;
  w.chan->written.store(0);
  w.chan->read.store(0);
  w.chan->verdict.store(verdict_none);
  std::memset(w.chan->trace_file, 0, sizeof w.chan->trace_file);
  w.chan->note.signal.store(0);
  std::memset(w.chan->note.message, 0, sizeof w.chan->note.message);
  std::memset(w.chan->note.operation_name, 0, sizeof w.chan->note.operation_name);
  w.log->begin();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  std::fflush(nullptr);  // or buffered output would be written twice
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("cannot fork a worker: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    work(w, assigned, fds[1]);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);  // the parent polls many workers: a read must never wait
  w.pid = pid;
  w.pipe = fds[0];
  w.pending.clear();
  w.running = true;
  w.hung = false;
  w.last_index = no_slot;
}

void parent::work(worker& w, const assignment& assigned, int to_parent) {
  const pid_t parent_pid = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent_pid) ::_exit(0);
  // Ctrl-C reaches the whole process group: the parent decides when to stop.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_DFL);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(w.cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
  const auto send = [&](const json& m) { write_all(to_parent, m.dump() + "\n"); };
  try {
    iteration_runner runner(run_, signatures_, w.log.get(), &w.chan->note);
    channel& c = *w.chan;
    const auto publish = [&](const iteration_record& record) {
      const std::uint64_t n = c.written.load(std::memory_order_relaxed);
      while (n - c.read.load(std::memory_order_acquire) >= ring_size)
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // the parent is behind
      c.ring[n % ring_size] = record;
      c.written.store(n + 1, std::memory_order_release);
      c.in_flight.store(0, std::memory_order_release);
    };
    for (std::uint64_t slot = assigned.warm_from; slot < assigned.first; ++slot)
      runner.warm_up(shard_index_of_slot(opts_, window_, slot));
    std::uint64_t slot = assigned.first;
    std::uint64_t end = assigned.end;
    while (!stopping()) {
      if (slot >= end) {  // claim the next block
        slot = shared_->next_slot.fetch_add(block_, std::memory_order_relaxed);
        if (slot >= slots_) break;
        end = std::min(slot + block_, slots_);
      }
      if (opts_.stop_on_first_bug && slot > shared_->bound.load(std::memory_order_acquire)) break;
      c.started_ns.store(monotonic_ns(), std::memory_order_relaxed);
      c.in_flight.store(slot + 1, std::memory_order_release);
      bool published = false;
      // A bug no lower slot has decided: publish the iteration (it is over),
      // tell the parent, and wait until it knows whether a lower slot found
      // the same bug (or, stopping at the first bug, any bug).
      const bug_decider decide = [&](const iteration_record& record, const std::string& signature,
                                     std::string& trace_file) {
        if (opts_.stop_on_first_bug) lower_bound_to(shared_->bound, slot);
        c.verdict.store(verdict_pending, std::memory_order_release);
        publish(record);
        published = true;
        send({{"t", "candidate"}, {"slot", slot}, {"signature", signature}});
        while (c.verdict.load(std::memory_order_acquire) == verdict_pending)
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        if (c.verdict.load(std::memory_order_acquire) != verdict_go) return false;
        trace_file = c.trace_file;
        return true;
      };
      iteration_report r = runner.process(shard_index_of_slot(opts_, window_, slot), decide);
      if (r.first) send(group_message(*r.first));
      if (r.repeat) send({{"t", "repeat"}, {"slot", slot}, {"signature", *r.repeat}});
      if (!published) publish(r.record);
      ++slot;
      if (r.divergence) {
        send({{"t", "divergence"}, {"message", *r.divergence}});
        break;
      }
      if (r.exhausted) {
        send({{"t", "exhausted"}});
        break;
      }
    }
    send({{"t", "done"},
          {"schedules", runner.chosen().schedules_explored()},
          {"executions", runner.chosen().counts_executions()},
          {"bounded_choices", runner.chosen().bounded_choices()},
          {"held_wait_iterations", runner.chosen().held_wait_iterations()}});
  } catch (const std::exception& e) {
    send({{"t", "error"}, {"message", e.what()}});
  }
  std::fflush(nullptr);
  ::_exit(0);
}

void parent::handle(const json& m, worker& w) {
  const std::string type = m.value("t", "");
  if (type == "bug") {
    if (progress_) progress_->clear();
    bugs_.add(group_from_message(m));
  } else if (type == "candidate") {
    const auto slot = m.at("slot").get<std::uint64_t>();
    candidate& c = candidates_[slot];
    c.signature = m.at("signature").get<std::string>();
    c.worker = static_cast<std::size_t>(&w - workers_.data());
    bug_slots_[slot] = c.signature;
  } else if (type == "repeat") {
    bug_slots_[m.at("slot").get<std::uint64_t>()] = m.at("signature").get<std::string>();
  } else if (type == "divergence") {
    if (!res_.divergence) res_.divergence = m.at("message").get<std::string>();
    stop();
  } else if (type == "exhausted") {
    res_.stats.exhausted = true;
    stop();
  } else if (type == "done") {
    schedules_ += m.value("schedules", std::uint64_t{0});
    executions_ = executions_ || m.value("executions", false);
    bounded_choices_ += m.value("bounded_choices", std::uint64_t{0});
    held_wait_iterations_ += m.value("held_wait_iterations", std::uint64_t{0});
  } else if (type == "error") {
    if (error_.empty()) error_ = m.value("message", "a worker failed");
    stop();
  }
}

void parent::read_messages(worker& w) {
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(w.pipe, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    w.pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t end; (end = w.pending.find('\n')) != std::string::npos;) {
      const json m = json::parse(w.pending.substr(0, end), nullptr, false);
      w.pending.erase(0, end + 1);
      if (m.is_object()) handle(m, w);
    }
  }
}

void parent::drain(worker& w) {
  channel& c = *w.chan;
  const std::uint64_t written = c.written.load(std::memory_order_acquire);
  for (std::uint64_t k = c.read.load(std::memory_order_relaxed); k < written; ++k) {
    const iteration_record& r = c.ring[k % ring_size];
    pending_records_[slot_of(r.index)] = r;
    w.last_index = r.index;
  }
  c.read.store(written, std::memory_order_release);
}

void parent::advance() {
  while (!pending_records_.empty()) {
    const auto it = pending_records_.begin();
    if (it->first < prefix_) {  // run twice (a requeued slot): counted once
      pending_records_.erase(it);
      continue;
    }
    if (it->first != prefix_ || (first_bug_ && prefix_ > *first_bug_)) break;
    if (it->second.bug) {
      // Every lower slot is in: the bug of this one is decided here, once the
      // worker's message saying what it was has come.
      if (!bug_slots_.contains(prefix_)) break;
      if (const auto c = candidates_.find(prefix_); c != candidates_.end()) {
        decide(c->first, c->second);
        candidates_.erase(c);
      }
    }
    stats_.add(it->second);
    if (opts_.record_iterations) res_.iterations.push_back(it->second);
    ++prefix_;
    pending_records_.erase(it);
  }
  // A run that stops (a budget, an interrupt, a bug) decides what it has, in slot order.
  if (!stopping()) return;
  for (auto& [slot, c] : candidates_) decide(slot, c);
  candidates_.clear();
}

void parent::decide(std::uint64_t slot, candidate& c) {
  const bool go = !first_bug_ && !decided_.contains(c.signature);
  if (go) {
    decided_[c.signature] = slot;
    signatures_.insert(c.signature);
    if (opts_.stop_on_first_bug) {
      first_bug_ = slot;
      stop();
    }
  }
  // Its trace file's name is taken now, in the order of the slots decided.
  const std::string trace_file = go && !run_.directory.empty() ? reserve_new_file(run_.directory, "bug", ".json") : "";
  if (c.lost) {
    if (go) finalize_lost(slot, c, trace_file);
    return;
  }
  channel& chan = *workers_[c.worker].chan;
  if (trace_file.size() >= sizeof chan.trace_file)
    throw usage_error(fmt::format("the output path '{}' is too long", trace_file));
  std::memcpy(chan.trace_file, trace_file.c_str(), trace_file.size() + 1);
  chan.verdict.store(go ? verdict_go : verdict_drop, std::memory_order_release);
}

std::string lost_report(const run_context& run, const bug_group& g, std::string_view how) {
  std::string r = fmt::format("heddle: bug found in {} (iteration {}, strategy {}, seed {}); {}\n\n",
                              run.id.test, g.first_iteration, g.trace.header.strategy, g.trace.header.seed, how);
  r += fmt::format("  {}: {}\n    after {} steps\n\n", to_string(g.bug.kind), g.bug.message, g.trace.steps.size());
  r += fmt::format("  trace:  {}\n", to_compact(g.minimized_trace));
  const report_context ctx{run.id.test, run.id.program, g.trace_file, g.first_iteration, 0, false};
  if (!g.trace_file.empty()) r += fmt::format("  file:   {}\n  replay: {}\n", g.trace_file, replay_command(ctx));
  return r + "\n";
}

// The worker died in the middle of `slot`: a bug, or (killed from outside) a
// slot to run again.
void parent::lost_iteration(worker& w, std::uint64_t slot, int status) {
  const std::uint64_t index = shard_index_of_slot(opts_, window_, slot);
  const crash_note& note = w.chan->note;
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const bool noted = note.signal.load(std::memory_order_acquire) != 0;
  if (!w.hung && !noted && (signal == SIGKILL || signal == SIGTERM) && !run_again_.contains(slot)) {
    // Run it again, after the iterations of its window before it (since the
    // block's start or its last crash), so the strategy learned what it had.
    run_again_.insert(slot);
    std::uint64_t window_start = slot - slot % block_;
    if (const auto crash = crashed_.lower_bound(window_start); crash != crashed_.end() && *crash < slot)
      window_start = *std::prev(crashed_.lower_bound(slot)) + 1;
    requeued_.push_back({window_start, slot, block_end(slot)});
    return;
  }
  std::vector<trace_step> steps = w.log->snapshot();
  bug b;
  b.step = steps.size();
  if (w.hung) {
    b.kind = bug_kind::livelock;
    operation_id running = 0;
    for (auto it = steps.rbegin(); it != steps.rend() && running == 0; ++it)
      if (it->kind == step_kind::schedule) running = static_cast<operation_id>(it->value);
    b.operation = running;
    b.message = fmt::format("hang: the iteration did not finish within --iteration-timeout {} ms; operation {} "
                            "was running after step {} (a loop without a scheduling point, or a wait heddle does "
                            "not control)",
                            opts_.iteration_timeout.count(), running, steps.size());
  } else if (noted) {
    b.kind = note.kind;
    b.message = note.message;
    b.operation = note.operation;
    b.operation_name = note.operation_name;
  } else if (signal != 0) {
    b.kind = bug_kind::crash;
    b.message = fmt::format("the process died of signal {} ({})", signal, ::strsignal(signal));
  } else {
    b.kind = bug_kind::crash;
    b.message = fmt::format("the process exited with status {} in the middle of the iteration", WEXITSTATUS(status));
  }
  iteration_record record;
  record.index = index;
  record.steps = steps.size();
  record.schedule_hash = schedule_hash(steps);
  record.bug = true;
  pending_records_[slot] = record;
  crashed_.insert(slot);

  const std::string signature = root_cause(b, {});
  bug_slots_[slot] = signature;
  if (opts_.stop_on_first_bug) lower_bound_to(shared_->bound, slot);
  if (decided_.contains(signature)) return;
  candidate& c = candidates_[slot];
  c.signature = signature;
  c.lost = true;
  c.found = std::move(b);
  c.steps = std::move(steps);
  c.hung = w.hung;
}

void parent::finalize_lost(std::uint64_t slot, candidate& c, const std::string& trace_file) {
  const std::uint64_t index = shard_index_of_slot(opts_, window_, slot);
  bug_group g;
  g.bug = c.found;
  g.signature = c.signature;
  g.count = 1;
  g.first_iteration = index;
  g.trace.header = make_header(opts_, run_.id, description_, index);
  g.trace.steps = std::move(c.steps);
  g.trace.found = c.found;
  if (c.hung) {
    // A hang is saved as found: its candidates would each cost a watchdog period.
    g.minimized_trace = g.trace;
    if (!trace_file.empty()) {
      write_reserved_file(trace_file, to_json(g.minimized_trace));
      g.trace_file = trace_file;
    }
    std::string report = lost_report(run_, g, "the watchdog killed the worker");
    // The HTML report of what the parent knows: who ran each step (no names or source lines).
    if (const std::string html = g.trace_file.empty() ? "" : write_html_report(g.trace_file, {make_timeline("original", g.trace)});
        !html.empty())
      report.insert(report.size() - 1, fmt::format("  html:   {}\n", html));
    g.report = std::move(report);
  } else {
    // A crash is minimized with each candidate in a process of its own
    // (minimize.hpp). The parent knows who ran each step, not names or source lines.
    iteration_outcome known;
    known.found = c.found;
    finalize_group(g, known, run_, trace_file);
  }
  if (progress_) progress_->clear();
  bugs_.add(std::move(g));
}

void parent::reap(worker& w, int status) {
  w.running = false;
  read_messages(w);
  ::close(w.pipe);
  w.pipe = -1;
  drain(w);
  const std::uint64_t in_flight = w.chan->in_flight.load(std::memory_order_acquire);
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && in_flight == 0;
  if (clean) return;
  ++res_.stats.workers_replaced;
  // A candidate it was waiting on dies with it (a kill from outside).
  const auto k = static_cast<std::size_t>(&w - workers_.data());
  std::erase_if(candidates_, [&](const auto& c) { return !c.second.lost && c.second.worker == k; });
  std::optional<std::uint64_t> last;  // the last slot it began
  if (in_flight != 0) {
    const std::uint64_t slot = in_flight - 1;
    last = slot;
    // The record of the iteration may be out just before the worker died.
    if (w.last_index != shard_index_of_slot(opts_, window_, slot)) lost_iteration(w, slot, status);
  } else if (w.last_index != no_slot) {
    last = slot_of(w.last_index);
  }
  // The rest of its block goes to its replacement. The iteration that ended
  // the worker ended its learning window too: what comes after it learns
  // afresh, in every run, wherever it runs.
  if (!systematic_ && last && !run_again_.contains(*last) && *last + 1 < block_end(*last))
    requeued_.push_back({*last + 1, *last + 1, block_end(*last)});
  if (systematic_ && !stopping()) {
    if (opts_.print_report)
      std::fprintf(stderr, "heddle: %s cannot resume its search in a new worker: the run ends here\n",
                   description_.c_str());
    stop();
  }
}

result parent::run() {
  interrupt_scope interrupts;
  progress_.emplace(opts_, slots_);
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = opts_.time_budget.count() > 0 ? started + opts_.time_budget
                                                      : std::chrono::steady_clock::time_point::max();
  if (slots_ > 0)
    for (worker& w : workers_) spawn(w, {});
  res_.stats.workers = static_cast<unsigned>(workers_.size());
  while (true) {
    std::vector<pollfd> fds;
    for (worker& w : workers_)
      if (w.running) fds.push_back({w.pipe, POLLIN, 0});
    if (fds.empty()) break;
    ::poll(fds.data(), fds.size(), 20);
    for (worker& w : workers_) {
      if (!w.running) continue;
      read_messages(w);
      drain(w);
      int status = 0;
      if (::waitpid(w.pid, &status, WNOHANG) == w.pid) reap(w, status);
    }
    if (opts_.iteration_timeout.count() > 0) {
      // Wall time while the worker is blocked, CPU time while it runs: one
      // waiting for a CPU on a loaded machine is not hung (hang_clock.hpp).
      const auto now = hang_clock::clock::now();
      for (worker& w : workers_) {
        if (!w.running || w.hung || w.chan->in_flight.load(std::memory_order_acquire) == 0) continue;
        if (const std::uint64_t began = w.chan->started_ns.load(std::memory_order_relaxed);
            began != w.watched_start) {
          w.watched_start = began;  // CLOCK_MONOTONIC, as steady_clock
          w.watch.restart(w.pid, hang_clock::clock::time_point(std::chrono::nanoseconds(began)));
        }
        if (w.watch.expired(now)) {
          w.hung = true;
          ::kill(w.pid, SIGKILL);
        }
      }
    }
    if (interrupt_scope::requested() && !res_.interrupted) {
      res_.interrupted = true;
      stop();
    }
    if (std::chrono::steady_clock::now() >= deadline) stop();
    progress_->update(stats_.iterations(), stats_.buggy_iterations());
    // Replace the workers that died while there is work left.
    for (worker& w : workers_) {
      if (w.running || stopping()) continue;
      const bool work_left = !requeued_.empty() || shared_->next_slot.load() < slots_;
      if (!work_left) continue;
      assignment assigned;
      if (!requeued_.empty()) {
        assigned = requeued_.back();
        requeued_.pop_back();
      }
      spawn(w, assigned);
    }
    advance();
  }
  // Candidates of workers that died last: decided now, in slot order.
  stop();
  advance();
  // A run cut short (time budget, interrupt) may leave gaps: what finished
  // still counts, in slot order.
  for (auto& [slot, record] : pending_records_) {
    if (first_bug_ && slot > *first_bug_) break;
    stats_.add(record);
    if (opts_.record_iterations) res_.iterations.push_back(record);
  }
  // Iterations that repeated a decided signature, up to the stop.
  for (const auto& [slot, signature] : bug_slots_) {
    if (first_bug_ && slot > *first_bug_) break;
    const auto decided = decided_.find(signature);
    if (decided != decided_.end() && decided->second != slot) bugs_.count(signature);
  }
  progress_->clear();
  if (!error_.empty()) throw usage_error(error_);
  const bool exhausted = res_.stats.exhausted;
  const unsigned workers = res_.stats.workers;
  const std::uint64_t replaced = res_.stats.workers_replaced;
  res_.stats = stats_.finish(std::chrono::steady_clock::now() - started);
  res_.stats.exhausted = exhausted;
  res_.stats.workers = workers;
  res_.stats.workers_replaced = replaced;
  res_.stats.schedules = schedules_;
  res_.stats.schedules_are_executions = executions_;
  res_.stats.bounded_choices = bounded_choices_;
  res_.stats.held_wait_iterations = held_wait_iterations_;
  res_.stats.max_steps = opts_.max_steps;
  std::sort(res_.iterations.begin(), res_.iterations.end(),
            [](const iteration_record& a, const iteration_record& b) { return a.index < b.index; });
  bugs_.into(res_);
  if (res_.divergence && opts_.print_report) std::fprintf(stderr, "heddle: %s\n", res_.divergence->c_str());
  return std::move(res_);
}

}  // namespace

bool is_systematic(std::string_view d) { return d.starts_with("dfs") || d.starts_with("dpor"); }

result run_workers(const run_context& run) { return parent(run).run(); }

}  // namespace heddle::detail
