// One process's share of a run: the engine, the strategy and the crash guard
// that run iterations, and what becomes of each iteration (its statistics
// record, the bug it found, a determinism divergence). The same code runs an
// in-process run (explore.cpp) and each worker of a parallel one (workers.cpp).
//
// Contract: process(index) runs iteration `index` with the seed derived from
// (seed, index). A bug whose signature is new to the run (signature_table,
// which workers share) is finalized (finalize.hpp), its trace written under
// --out, and its report formatted here, where the iteration's outcome is; a
// bug seen before is only counted.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backends/fiber_backend.hpp"
#include "engine/engine.hpp"
#include "engine/strategy.hpp"
#include "heddle/explore.hpp"
#include "runner/crash_guard.hpp"
#include "runner/minimize.hpp"
#include "runner/step_log.hpp"

namespace heddle::detail {

// What every process of a run shares: the options (after overrides), the
// test and its body.
struct run_context {
  options opts;
  test_identity id;
  std::function<void()> body;
  std::string directory;  // where traces go (--out/<test>), empty: not written
  input_reduction reduce;  // how the test's input shrinks (minimize.hpp), if it can
};

std::string test_directory(const options& o, const test_identity& id);
// explore() with `opts` as they are: for a kind of test whose own options
// already took the HEDDLE_* variables and --heddle_* flags (lincheck, whose
// --iterations counts runs per scenario).
// `reduce`: how the kind of test shrinks its input along with the schedule.
result explore_as_given(const options& opts, std::function<void()> body, const test_identity& id,
                        input_reduction reduce = {});
// The backend options::backend names (fibers or threads).
std::unique_ptr<backend> make_backend(const options& o);
trace_header make_header(const options& o, const test_identity& id, std::string strategy, std::uint64_t iteration);
// Writes `text` to the first free `<dir>/<stem>-N<extension>` (atomically;
// safe between processes); returns the path.
std::string write_new_file(const std::filesystem::path& dir, std::string_view stem, std::string_view extension,
                           const std::string& text);
// Takes the first free `<dir>/<stem>-N<extension>` now, as an empty file, for
// text written there later (write_reserved_file): the parent of a worker run
// numbers the trace files in the order it decides the bugs, as one process
// would, whichever worker finishes minimizing first.
std::string reserve_new_file(const std::filesystem::path& dir, std::string_view stem, std::string_view extension);
// Replaces the file at `path` (a reserved one) with `text`, atomically.
void write_reserved_file(const std::filesystem::path& path, const std::string& text);
// The first bug of a signature made ready: `g.trace` (recorded in iteration
// g.first_iteration) minimized (finalize.hpp), saved under the run's
// directory with its HTML report, and its report formatted. `outcome` is
// what is known of the recorded iteration (names, objects, lines).
// `reserved_file`: the trace's path, reserved by the parent of a worker run
// (reserve_new_file); empty, the first free name.
void finalize_group(bug_group& g, const iteration_outcome& outcome, const run_context& run,
                    const std::string& reserved_file = {});

// The signatures a run has seen, as 64-bit hashes in a fixed open-addressing
// table over memory that may be shared between processes: claim() is true for
// exactly one caller per signature. A full table claims everything (more
// traces saved, nothing lost).
class signature_table {
 public:
  static constexpr std::size_t slots = 4096;
  static std::size_t bytes() { return slots * sizeof(std::atomic<std::uint64_t>); }
  explicit signature_table(void* zeroed_memory) : slots_(static_cast<std::atomic<std::uint64_t>*>(zeroed_memory)) {}
  bool claim(std::string_view signature);
  // Workers ask; the parent, which decides which occurrence comes first, inserts.
  bool contains(std::string_view signature) const;
  void insert(std::string_view signature) { (void)claim(signature); }

 private:
  std::atomic<std::uint64_t>* slots_;
};

struct iteration_report {
  iteration_record record;
  std::optional<bug_group> first;     // a bug with a signature new to the run
  std::optional<std::string> repeat;  // the signature of a bug seen before
  std::optional<std::string> divergence;  // --check-determinism, or a search that cannot go on
  bool exhausted = false;                 // a systematic strategy covered its space
};

// Decides whether a bug whose signature the table does not hold yet is
// finalized here (true) or only counted. In process, the first occurrence in
// index order claims the signature; a worker asks the parent, which answers
// once every lower index has finished (workers.cpp), with the path it
// reserved for the trace in `trace_file` (empty: no --out).
using bug_decider =
    std::function<bool(const iteration_record& record, const std::string& signature, std::string& trace_file)>;

class iteration_runner {
 public:
  // With `log`, every decision is streamed to it; with `note`, a crash is
  // described there instead of saved (see crash_guard.hpp).
  iteration_runner(const run_context& run, signature_table& signatures, step_log* log = nullptr,
                   crash_note* note = nullptr);
  ~iteration_runner();

  // Runs iteration `index`. The strategy starts afresh (forgets what it
  // learned) at the start of each learning window and wherever the indices
  // this runner was given stop being consecutive, so what it learned comes
  // from the earlier iterations of the window only, wherever they ran.
  iteration_report process(std::uint64_t index, const bug_decider& decide = {});
  // Runs iteration `index` only for the strategy to learn from it (nothing is
  // reported): a replacement worker catching up with a window it resumes.
  void warm_up(std::uint64_t index);
  const strategy& chosen() const { return *chosen_; }
  std::string describe() const { return chosen_->describe(); }
  std::uint64_t learning_window() const { return window_; }

 private:
  void start_window_if_due(std::uint64_t index);
  const iteration_outcome& run_one(std::uint64_t index);
  std::optional<std::string> check_determinism(std::uint64_t index, const std::vector<trace_step>& steps,
                                               const std::optional<bug>& found);

  const run_context& run_;
  signature_table& signatures_;
  step_log* log_;
  std::unique_ptr<strategy> chosen_;
  std::uint64_t window_;
  std::uint64_t next_index_ = 0;  // the index that continues the current window
  bool fresh_ = true;             // chosen_ has run no iteration yet
  std::unique_ptr<strategy> streaming_;
  strategy* active_;
  std::unique_ptr<backend> backend_;  // options::backend: fibers or threads
  engine engine_;
  crash_guard guard_;
};

}  // namespace heddle::detail
