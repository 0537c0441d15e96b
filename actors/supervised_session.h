// A Session that checkpoints on schedule and comes through a lost task by
// itself (paper 3.3: "the entire graph execution is aborted and restarted";
// what TensorFlow's MonitoredTrainingSession does for its users). The
// session's supervisor (actors/supervisor.h) brings the lost task back, or
// waits for it; this restores every variable from the newest good
// checkpoint and tells the caller which step to go on from.
//
//   SessionOptions so;
//   so.cluster = spec;
//   so.supervision.checkpoint = {"/tmp/run", /*every_steps=*/100};
//   so.supervision.restart_task = ...;  // or leave empty and wait for it
//   auto s = SupervisedSession::Create(so, graph_def, "init");
//   while ((*s)->step() < total) {
//     auto r = (*s)->RunStep(FeedsFor((*s)->step()), {"loss:0"}, {"train"});
//     if (!r.ok()) return r.status();        // not a failure a restore follows
//     if (r->recovery) continue;             // restored: step() moved back
//     ... r->fetched ...
//   }
//
// or, with each step sent while the one before runs, RunSteps:
//
//   StepLoop loop;
//   loop.until = total;
//   loop.feeds = [&](int64_t step) { return FeedsFor(step); };
//   loop.fetches = {"loss:0"};
//   loop.targets = {"train"};
//   loop.after_step = [&](int64_t step, const SupervisedStepResult& r) { ...; return true; };
//   TACT_RETURN_IF_ERROR((*s)->RunSteps(loop));
//
// A step is the caller's unit of training: one Run, or several Runs at
// once (async replicas) through the RunStep that takes a function. Only
// RunStep counts steps and recovers; session() is for other Runs
// (evaluation), which fail as a plain Session's do.
//
// Not thread-safe: one thread drives the steps.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/session.h"
#include "checkpoint/checkpoint_graph.h"
#include "checkpoint/dir_lock.h"

namespace tact {

// What a recovery did, as the caller reads it.
struct RecoveryEvent {
  int64_t failed_step = 0;   // the step (0-based) that failed, or after which a save failed
  int64_t resumed_from = 0;  // the checkpoint restored: step() now
  int64_t steps_lost = 0;    // failed_step - resumed_from: steps to run again
  double recovery_ms = 0;    // from the failure to the variables restored
  Status cause;              // the failure
};

struct SupervisedStepResult {
  std::vector<Tensor> fetched;            // empty after a recovery
  std::optional<RecoveryEvent> recovery;  // set when the step failed and was recovered from
};

// A run of steps for SupervisedSession::RunSteps.
struct StepLoop {
  using Feeds = std::vector<std::pair<std::string, Tensor>>;
  int64_t until = 0;  // runs steps step() .. until - 1
  // A step's feeds, asked for in step order each time the step is to run
  // (again after a recovery), possibly while the step before runs. An
  // error ends the loop once the step before has ended.
  std::function<StatusOr<Feeds>(int64_t step)> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  // Called in step order with each step that completed (its fetched
  // tensors) and with each recovery (`recovery` set: step() went back).
  // Returning false ends the loop; a step already sent ahead still
  // completes and is reported (what this call returns then is not read).
  std::function<bool(int64_t step, const SupervisedStepResult& result)> after_step;
  // Each step is sent while the one before runs (Session::StartFollowing),
  // unless a checkpoint is saved between them. Off: one at a time.
  bool send_ahead = true;
};

// Counters over the whole run.
struct SupervisionStats {
  int64_t resumed_from = -1;  // the checkpoint's step the run started from (-1: none)
  int recoveries = 0;
  int64_t steps_lost = 0;
  // From a failed step to the next step that completed, the worst one.
  double recovery_ms_max = 0;
  int checkpoints_saved = 0;
};

class SupervisedSession {
 public:
  // Creates the session of `options` (supervision.checkpoint says where and
  // when to save), extends it with `graph` and the checkpoint nodes of every
  // Variable in it, and starts the run: restores the newest good checkpoint
  // of the directory, or runs `init_op` and saves the initial values as
  // checkpoint 0 (so a failure before the first save restores them rather
  // than drawing new ones). Without a checkpoint directory it only runs
  // `init_op`. The values it started from (checkpoint 0's, or those of the
  // checkpoint it resumed from) stay in this process too, a copy of every
  // variable: should every checkpoint be damaged by the time of a failure,
  // they are written again under their step and restored from there, so
  // the run ends as it would have without the fault. A directory holding
  // checkpoints of another graph (another model, or another optimizer's
  // slots) is an InvalidArgument naming a difference, and stays untouched.
  // A directory another session (here or in another process) checkpoints
  // into is a FailedPrecondition naming it (checkpoint/dir_lock.h).
  static StatusOr<std::unique_ptr<SupervisedSession>> Create(const SessionOptions& options,
                                                             GraphDef graph, const std::string& init_op);
  ~SupervisedSession();

  // The next step to run (0-based).
  int64_t step() const { return step_; }

  // Runs step step(). When it completes, step() advances and a checkpoint is
  // saved if one is due. When it (or the save) fails because a task was
  // lost, a step timed out or was cancelled, or because a task attached
  // again since the last restore has lost its variables (the Run that
  // waited for it found them uninitialised), and checkpoints are on: waits
  // for the cluster to be whole again (the supervisor's task_wait_ms, at
  // least 10 s), restores the newest good checkpoint, and returns with
  // `recovery` set. Any other failure is returned as it is, and so is one
  // after which no step completes in time (counted from the failure: a
  // worker that never comes back ends the run rather than restores that
  // each wait for it again).
  StatusOr<SupervisedStepResult> RunStep(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                         const std::vector<std::string>& fetches,
                                         const std::vector<std::string>& targets);
  // Runs RunStep's steps up to loop.until, each sent ahead while the one
  // before runs: the loop of the example above, with the hand-offs
  // between two steps (the answer's way back here, the next step's way to
  // the tasks) off the step's path. The variables and checkpoints are
  // those of a RunStep loop with the same feeds. Returns an error of the
  // feeds, or a failure that RunStep would return; OK once step() reached
  // loop.until or after_step asked to stop.
  Status RunSteps(const StepLoop& loop);
  // The same for a step that is several Runs: `body` runs them on the
  // session, and its status is the step's; it fetches what it wants itself.
  StatusOr<SupervisedStepResult> RunStep(const std::function<Status(Session&)>& body);

  // Inside RunStep's body: whether a checkpoint is saved once the step
  // ends (decided as the step starts). A body that starts the next step
  // ahead (Session::StartFollowing) must not when one is: the save would
  // run beside that step.
  bool saves_after_this_step() const { return save_after_; }

  // Saves a checkpoint of step() now (for example at the end of the run).
  Status Save();
  // Saves a checkpoint of step() unless the directory's newest is of step()
  // already: at the end of a run, as TensorFlow's saver hook does, so that
  // the directory holds the trained values and a longer run resumes there;
  // and at a run stopped early. OK without a checkpoint directory.
  Status SaveFinal();

  // For Runs that are not training steps.
  Session& session() { return *session_; }
  const SupervisionStats& stats() const { return stats_; }
  bool checkpointing() const { return !checkpoint_.dir.empty(); }

  // A fault hook for tests and chaos runs: called with the step just before
  // its checkpoint is written.
  void set_before_save(std::function<void(int64_t step)> hook) { before_save_ = std::move(hook); }

  Status Close() { return session_->Close(); }

 private:
  using Clock = std::chrono::steady_clock;

  SupervisedSession(const SupervisionOptions& supervision, std::string init_op);
  Status Start();
  Status SaveAt(int64_t step);
  StatusOr<int64_t> Restore();
  // After a failure of step `failed_at`: a recovery, or the failure itself.
  StatusOr<SupervisedStepResult> Recover(const Status& why, int64_t failed_at);
  // Whether a restore can follow `why`.
  bool Recoverable(const Status& why) const;

  // Tasks attached again, counted by the master's callback; shared with
  // it, since the session's actors may outlive this object by a moment.
  std::shared_ptr<std::atomic<int64_t>> tasks_back_ = std::make_shared<std::atomic<int64_t>>(0);
  int64_t tasks_back_at_restore_ = 0;
  // Held while the session lives, and released after it closes (members
  // end in reverse order): no other run saves into the directory meanwhile.
  CheckpointDirLock dir_lock_;
  std::unique_ptr<Session> session_;
  CheckpointOptions checkpoint_;
  // The checkpoint the run started from, read back after it was saved or
  // restored: what Restore falls back to when no checkpoint is good.
  std::optional<Checkpoint> start_;
  double wait_secs_;  // how long a recovery waits for the cluster
  std::string init_op_;
  CheckpointNodes nodes_;
  std::function<void(int64_t)> before_save_;
  int64_t step_ = 0;
  bool save_after_ = false;
  SupervisionStats stats_;
  Clock::time_point last_save_ = Clock::now();
  // Until a step completes, further failures belong to the same recovery.
  std::optional<Clock::time_point> failed_since_;
};

}  // namespace tact
