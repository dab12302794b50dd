// One iteration of `heddle run`, from the fork server's side: it forks the
// child (which runs the program under the strategy it inherited, rt/fork_child.hpp),
// feeds the decisions the child logged to the fork server's own copy of the
// strategy, takes the log when it is full, watches for a hang
// (--iteration-timeout), and judges how the child ended: a bug the engine
// found, a fatal signal, an exit status other than the program's usual one,
// an output check that failed. Part of the fork server (rt/fork_server.hpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rt/fork_channel.hpp"
#include "rt/input_rewind.hpp"
#include "rt/output_capture.hpp"
#include "rt/run_plan.hpp"

// Internal to libheddle-rt.
#pragma GCC visibility push(hidden)
namespace heddle::rt {

// What one child left behind.
struct iteration_result {
  std::optional<bug> found;
  std::vector<trace_step> steps;  // every decision the parent took
  std::vector<operation_id> step_operations;  // who took each step
  bool hit_max_steps = false;
  bool weak_order = false;
  bool sc_in_run_order = false;  // rc11: iteration_outcome::sc_in_run_order
  std::uint64_t weak_execution = 0;  // rc11: iteration_summary::weak_execution
  std::optional<std::string> stopped;
  std::uint32_t uncontrolled_inputs = 0;  // rt::uncontrolled_input bits
  // The exit status became the usual one here (see finish()), as a bug
  // should a later iteration exit 0; and such a later iteration.
  std::optional<bug> learnt_exit;
  bool blames_learnt_exit = false;
};

class iteration_server {
 public:
  iteration_server(run_plan& plan, fork_channel& ch, output_capture& output);
  ~iteration_server();
  iteration_server(const iteration_server&) = delete;
  iteration_server& operator=(const iteration_server&) = delete;

  // Runs the iteration the plan's strategy has begun, in a new child.
  iteration_result run(const program_entry& program);

 private:
  void reset_channel();
  void take_log();
  void forget_hand_off();
  void hand_back_log();
  void serve(pid_t pid);
  void hang(pid_t pid);
  void set_operation(bug& b, operation_id op) const;
  void finish(int status);

  run_plan& plan_;
  fork_channel& ch_;
  output_capture& output_;
  input_rewind input_;  // every child reads stdin from the same start
  int log_event_;  // the child signals a full log here
  iteration_result result_;
  // The room reserved for an iteration's steps: the most any took so far.
  static constexpr std::size_t max_steps_room = 1 << 16;
  std::size_t steps_room_ = 64;
  std::uint64_t consumed_ = 0;  // decisions of the log fed to the strategy
  // rc11: the child's record of its last atomic access, as of the decision fed
  // to the strategy (decision_context::weak points here) or the end.
  detail::weak_access weak_copy_{};
  operation_id last_chosen_ = 0;
};

// The channel the children log into, shared with them (MAP_SHARED).
fork_channel* map_channel(std::uint64_t max_steps);

}  // namespace heddle::rt
#pragma GCC visibility pop
