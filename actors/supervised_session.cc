#include "actors/supervised_session.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>

#include "graph/logging.h"

namespace tact {
namespace {

// Failures a restore can follow: a task lost, a step timed out or
// cancelled. Aborted is the supervisor giving up.
bool Transient(const Status& s) {
  return s.code() == Code::kUnavailable || s.code() == Code::kDeadlineExceeded ||
         s.code() == Code::kCancelled;
}

double MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

StatusOr<std::unique_ptr<SupervisedSession>> SupervisedSession::Create(const SessionOptions& options,
                                                                       GraphDef graph,
                                                                       const std::string& init_op) {
  const CheckpointOptions& c = options.supervision.checkpoint;
  if (c.every_steps < 0) {
    return errors::InvalidArgument("checkpoint every_steps must be >= 0, got ", c.every_steps);
  }
  if (!(c.every_secs >= 0)) {
    return errors::InvalidArgument("checkpoint every_secs must be >= 0, got ", c.every_secs);
  }
  if (c.keep < 1) return errors::InvalidArgument("checkpoint keep must be >= 1, got ", c.keep);
  CheckpointNodes nodes;
  CheckpointDirLock lock;
  if (!c.dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(c.dir, ec);
    if (ec) return errors::InvalidArgument("checkpoint directory '", c.dir, "': ", ec.message());
    TACT_ASSIGN_OR_RETURN(lock, CheckpointDirLock::Acquire(c.dir));
    TACT_ASSIGN_OR_RETURN(nodes, AddCheckpointNodes(&graph, c.dir, c.keep));
  }
  std::unique_ptr<SupervisedSession> s(new SupervisedSession(options.supervision, init_op));
  s->dir_lock_ = std::move(lock);
  SessionOptions with_count = options;
  with_count.supervision.on_task_back = [count = s->tasks_back_, then = options.supervision.on_task_back](
                                            const std::string& task) {
    ++*count;
    if (then) then(task);
  };
  TACT_ASSIGN_OR_RETURN(s->session_, Session::Create(with_count));
  s->nodes_ = std::move(nodes);
  TACT_RETURN_IF_ERROR(s->session_->Extend(graph));
  TACT_RETURN_IF_ERROR(s->Start());
  return s;
}

SupervisedSession::SupervisedSession(const SupervisionOptions& supervision, std::string init_op)
    : checkpoint_(supervision.checkpoint),
      // As long as the session waits for a task, and at least 10 s: a task
      // lost but not yet noticed by the session is waited for too.
      wait_secs_(std::max(static_cast<double>(supervision.task_wait_ms) / 1000, 10.0)),
      init_op_(std::move(init_op)) {}

SupervisedSession::~SupervisedSession() {
  if (session_) (void)session_->Close();
}

Status SupervisedSession::Start() {
  tasks_back_at_restore_ = *tasks_back_;
  TACT_RETURN_IF_ERROR(session_->Run({}, {}, {init_op_}).status());
  if (!checkpointing()) return Status::OK();
  StatusOr<std::vector<int64_t>> steps = ListCheckpoints(checkpoint_.dir);
  if (steps.ok() && !steps->empty()) {
    TACT_ASSIGN_OR_RETURN(step_, Restore());
    if (step_ > 0) stats_.resumed_from = step_;
  } else {
    TACT_RETURN_IF_ERROR(SaveAt(0));
  }
  if (!start_.has_value()) {
    // A fresh checkpoint 0, read back (which also checks what was just
    // written): the values to come back to should every checkpoint be
    // damaged later. A resumed one Restore kept as it read it.
    StatusOr<Checkpoint> start = ReadCheckpoint(checkpoint_.dir, step_, nodes_.expected);
    if (!start.ok() && start.status().code() == Code::kNotFound) {
      // The save ran where the variables are; this process reads what it
      // wrote. On machines of their own, each sees its own directory.
      return errors::FailedPrecondition(
          "checkpoint ", step_, " was saved by the tasks that hold the variables, but this process "
          "does not find it in '", checkpoint_.dir, "' (", start.status().message(), "): the checkpoint "
          "directory must be one file system that this process and every task holding variables share "
          "(NFS or a cluster file system, as TensorFlow's must be)");
    }
    TACT_RETURN_IF_ERROR(start.status());
    start_ = std::move(*start);
  }
  return Status::OK();
}

StatusOr<SupervisedStepResult> SupervisedSession::RunStep(
    const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::vector<Tensor> fetched;
  TACT_ASSIGN_OR_RETURN(SupervisedStepResult r, RunStep([&](Session& s) {
                          StatusOr<std::vector<Tensor>> out = s.Run(feeds, fetches, targets);
                          if (out.ok()) fetched = std::move(*out);
                          return out.status();
                        }));
  if (!r.recovery) r.fetched = std::move(fetched);
  return r;
}

// A step's partitions wait in place for the step before's to end
// (Session::StartFollowing), so both compute as if run one after the
// other. Not across a checkpoint: the save runs between the two steps.
Status SupervisedSession::RunSteps(const StepLoop& loop) {
  if (!loop.feeds) return errors::InvalidArgument("StepLoop.feeds is not set");
  std::unique_ptr<PendingRun> ahead;  // step step_, sent while the step before ran
  bool stopped = false;
  while (step_ < loop.until && (!stopped || ahead != nullptr)) {
    const int64_t step = step_;
    StepLoop::Feeds feeds;
    if (ahead == nullptr) {
      TACT_ASSIGN_OR_RETURN(feeds, loop.feeds(step));
    }
    Status next_feeds;  // of the step after, should they fail
    std::vector<Tensor> fetched;
    TACT_ASSIGN_OR_RETURN(SupervisedStepResult r, RunStep([&](Session& s) {
                            std::unique_ptr<PendingRun> run = std::move(ahead);
                            if (run == nullptr) run = s.StartFollowing(feeds, loop.fetches, loop.targets);
                            if (loop.send_ahead && !stopped && step + 1 < loop.until && !save_after_) {
                              StatusOr<StepLoop::Feeds> next = loop.feeds(step + 1);
                              next_feeds = next.status();
                              if (next.ok()) ahead = s.StartFollowing(*next, loop.fetches, loop.targets);
                            }
                            StatusOr<std::vector<Tensor>> out = run->Wait();
                            if (!out.ok()) {
                              ahead.reset();  // waits for it to fail too: the recovery comes after
                              return out.status();
                            }
                            fetched = std::move(*out);
                            return Status::OK();
                          }));
    if (!r.recovery) r.fetched = std::move(fetched);
    if (loop.after_step && !loop.after_step(step, r)) stopped = true;
    TACT_RETURN_IF_ERROR(next_feeds);
  }
  return Status::OK();
}

StatusOr<SupervisedStepResult> SupervisedSession::RunStep(const std::function<Status(Session&)>& body) {
  save_after_ = false;
  if (checkpointing()) {
    const double since = std::chrono::duration<double>(Clock::now() - last_save_).count();
    const bool by_steps = checkpoint_.every_steps > 0 && (step_ + 1) % checkpoint_.every_steps == 0;
    const bool by_time = checkpoint_.every_secs > 0 && since >= checkpoint_.every_secs;
    save_after_ = by_steps || by_time;
  }
  Status s = body(*session_);
  if (!s.ok()) return Recover(s, step_);
  if (failed_since_) {
    stats_.recovery_ms_max = std::max(stats_.recovery_ms_max, MsSince(*failed_since_));
    failed_since_.reset();
  }
  ++step_;
  if (save_after_) {
    Status saved = SaveAt(step_);
    if (!saved.ok()) return Recover(saved, step_);
  }
  return SupervisedStepResult{};
}

Status SupervisedSession::Save() {
  if (!checkpointing()) return errors::FailedPrecondition("the session has no checkpoint directory");
  return SaveAt(step_);
}

Status SupervisedSession::SaveFinal() {
  if (!checkpointing()) return Status::OK();
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpoints(checkpoint_.dir));
  if (!steps.empty() && steps.back() == step_) return Status::OK();
  return SaveAt(step_);
}

// After falling back past a damaged checkpoint the run saves its step
// again: the new one replaces it (a good one is rewritten with the same
// values, since the steps between are recomputed alike).
Status SupervisedSession::SaveAt(int64_t step) {
  last_save_ = Clock::now();
  if (before_save_) before_save_(step);
  TACT_RETURN_IF_ERROR(DiscardCheckpoint(checkpoint_.dir, step));
  TACT_RETURN_IF_ERROR(
      session_->Run({{nodes_.step, Tensor::Scalar<int64_t>(step)}}, {}, {nodes_.save}).status());
  ++stats_.checkpoints_saved;
  return Status::OK();
}

// Restores the newest good checkpoint into the variables; with none good,
// the one the run started from, written again from this process's copy
// (running `init_op` again would draw other values: its random ops have
// moved on). While the run starts (`init_op` has run), with none good,
// saves checkpoint 0: a fresh start, as on an empty directory. Either way the damaged ones stop being
// checkpoints. Checkpoints of another graph are an InvalidArgument, and are
// left as they are: the directory is another model's, not damaged.
// Unavailable while a task is still away.
StatusOr<int64_t> SupervisedSession::Restore() {
  // Read before the restore runs: a task attached during it counts as
  // after it, and its variables are restored again at the next failure.
  const int64_t tasks_back = *tasks_back_;
  StatusOr<Checkpoint> c = ReadLatestGoodCheckpoint(checkpoint_.dir, nodes_.expected);
  if (!c.ok() && c.status().code() == Code::kNotFound) {
    // None is good: each damaged one would only count toward the newest
    // kept, and the saves to come, of lower steps, would be pruned at once.
    LogWarning("tact: no good checkpoint in ", checkpoint_.dir, " (", c.status().ToString(), "); ",
               start_.has_value() ? "writing again the one the run started from, of step " +
                                        std::to_string(start_->step)
                                  : std::string("starting afresh"));
    StatusOr<std::vector<int64_t>> damaged = ListCheckpoints(checkpoint_.dir);
    TACT_RETURN_IF_ERROR(damaged.status());
    for (int64_t step : *damaged) TACT_RETURN_IF_ERROR(DiscardCheckpoint(checkpoint_.dir, step));
    if (!start_.has_value()) {  // starting, after `init_op` ran: nothing good to resume
      TACT_RETURN_IF_ERROR(SaveAt(0));
      tasks_back_at_restore_ = tasks_back;
      return int64_t{0};
    }
    TACT_RETURN_IF_ERROR(WriteCheckpointShard(checkpoint_.dir, start_->step, 0, 1, start_->variables));
    TACT_RETURN_IF_ERROR(CommitCheckpoint(checkpoint_.dir, start_->step, 1));
    c = *start_;
  }
  TACT_RETURN_IF_ERROR(c.status());
  // The steps since the last good checkpoint are trained again: say so,
  // and why the newer ones were passed over.
  for (const Status& why : c->refused) {
    LogWarning("tact: passed over a damaged checkpoint in ", checkpoint_.dir, " (", why.ToString(),
               "); resuming from step ", c->step);
  }
  TACT_RETURN_IF_ERROR(
      session_->Run({{nodes_.step, Tensor::Scalar<int64_t>(c->step)}}, {}, {nodes_.restore}).status());
  tasks_back_at_restore_ = tasks_back;
  const int64_t step = c->step;
  if (!start_.has_value()) start_ = std::move(*c);  // the run resumes from it
  return step;
}

// A task that came back as a new process holds no variables: the Run that
// waited for it fails with FailedPrecondition (a variable read before it
// was initialised), and a restore mends it like a lost task.
bool SupervisedSession::Recoverable(const Status& why) const {
  if (Transient(why)) return true;
  return why.code() == Code::kFailedPrecondition && *tasks_back_ != tasks_back_at_restore_;
}

// The session has the lost task brought back, and a Run that needs it
// waits for it, so the restore runs once the cluster is whole again (or
// fails with the supervisor's reason when its restart limit is passed).
//
// The wait counts from the first failure, not from each: a restore needs
// only the tasks that hold variables, so it succeeds while a lost worker
// is still away, and a step that waited for that worker in vain would
// otherwise be followed by another restore and another wait, forever.
StatusOr<SupervisedStepResult> SupervisedSession::Recover(const Status& why, int64_t failed_at) {
  if (!Recoverable(why) || !checkpointing()) return why;
  const bool first = !failed_since_;
  if (first) failed_since_ = Clock::now();
  const auto deadline =
      *failed_since_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait_secs_));
  Status last = why;
  while (Clock::now() < deadline) {
    StatusOr<int64_t> restored = Restore();
    if (restored.ok()) {
      RecoveryEvent e{failed_at, *restored, failed_at - *restored, MsSince(*failed_since_), why};
      if (first) {
        ++stats_.recoveries;
        stats_.steps_lost += e.steps_lost;
      }
      step_ = *restored;
      return SupervisedStepResult{{}, std::move(e)};
    }
    last = restored.status();
    if (!Recoverable(last)) return last;
    // A task lost but not yet noticed by the session: a moment later, the
    // restore waits for it.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  char within[96];
  std::snprintf(within, sizeof within, "no step completed within %.0f s of the first failure: ", wait_secs_);
  return last.WithPrefix(within);
}

}  // namespace tact
