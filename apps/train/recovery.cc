#include "apps/train/recovery.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "checkpoint/checkpoint.h"

namespace tact::apps {
namespace {

constexpr int kPauseMs = 3000;  // longer than the session's health deadline

// Failures a restore can follow: a task lost, a step timed out or
// cancelled. Aborted is the supervisor giving up.
bool Transient(const Status& s) {
  return s.code() == Code::kUnavailable || s.code() == Code::kDeadlineExceeded ||
         s.code() == Code::kCancelled;
}

}  // namespace

Recovery::Recovery(const TrainOptions& opt, Session* session, LocalCluster* cluster,
                   ReplicatedTrainGraph* graph)
    : opt_(opt), session_(session), cluster_(cluster), graph_(graph) {}

Status Recovery::Init(int64_t total_steps) {
  std::vector<std::string> specs = opt_.faults;
  if (opt_.chaos_faults > 0) {
    if (cluster_ == nullptr) {
      return errors::InvalidArgument("--chaos needs a local cluster (--workers)");
    }
    for (const std::string& f : ChaosFaults(opt_.chaos_seed, opt_.chaos_faults,
                                            cluster_->spec().Tasks(), total_steps)) {
      specs.push_back(f);
    }
  }
  for (const std::string& f : specs) {
    TACT_ASSIGN_OR_RETURN(Fault fault, ParseFault(f));
    faults_.push_back(fault);
  }
  if (opt_.checkpoint_dir.empty()) return Status::OK();
  std::filesystem::create_directories(opt_.checkpoint_dir);
  TACT_ASSIGN_OR_RETURN(nodes_, AddCheckpointNodes(&graph_->def, graph_->variables,
                                                   opt_.checkpoint_dir, opt_.checkpoint_keep));
  return Status::OK();
}

StatusOr<int64_t> Recovery::Resume() {
  if (!checkpointing()) return 0;
  StatusOr<std::vector<int64_t>> steps = ListCheckpoints(opt_.checkpoint_dir);
  if (steps.ok() && !steps->empty()) return Restore();
  TACT_RETURN_IF_ERROR(Save(0));
  return 0;
}

Status Recovery::MaybeSave(int64_t done, TrainResult* r) {
  if (!checkpointing()) return Status::OK();
  const double since = std::chrono::duration<double>(Clock::now() - last_save_).count();
  const bool by_steps = opt_.checkpoint_every_steps > 0 && done % opt_.checkpoint_every_steps == 0;
  const bool by_time = opt_.checkpoint_every_secs > 0 && since >= opt_.checkpoint_every_secs;
  if (!by_steps && !by_time) return Status::OK();
  // A kill due "@checkpoint" lands while the shards are written.
  std::vector<std::thread> kills;
  for (const Fault& f : faults_) {
    if (!f.at_checkpoint || done_.count(f.spec) || cluster_ == nullptr) continue;
    done_.insert(f.spec);
    kills.emplace_back([cluster = cluster_, task = f.task] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      (void)cluster->Signal(task, SIGKILL);
    });
    ++r->faults_injected;
  }
  Status s = Save(done);
  for (std::thread& t : kills) t.join();
  return s;
}

Status Recovery::Inject(int64_t step, TrainResult* r) {
  for (const Fault& f : faults_) {
    if (f.at_checkpoint || f.step != step || done_.count(f.spec)) continue;
    done_.insert(f.spec);
    TACT_RETURN_IF_ERROR(InjectFault(f, cluster_, opt_.checkpoint_dir, kPauseMs));
    ++r->faults_injected;
  }
  return Status::OK();
}

// The session has the lost task brought back, and a Run that needs it
// waits for it, so the restore runs once the cluster is whole again (or
// fails with the supervisor's reason when its restart limit is passed).
StatusOr<int64_t> Recovery::Recover(const Status& why, int64_t failed_at, TrainResult* r) {
  if (!Transient(why) || !checkpointing()) return why;
  // Until a step completes, further failures belong to this recovery.
  const bool first = !recovering_;
  if (first) failed_since_ = Clock::now();
  // As long as the session waits for a task (at least 10 s).
  const double wait = std::max(opt_.task_wait_secs, 10.0);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(wait));
  Status last = why;
  while (Clock::now() < deadline) {
    StatusOr<int64_t> step = Restore();
    if (step.ok()) {
      if (first) {
        ++r->recoveries;
        r->steps_lost += failed_at - *step;
      }
      recovering_ = true;
      return *step;
    }
    last = step.status();
    if (!Transient(last)) return last;
    // A task lost but not yet noticed by the session: a moment later,
    // the restore waits for it.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  char within[64];
  std::snprintf(within, sizeof within, "no recovery within %.0f s: ", wait);
  return last.WithPrefix(within);
}

void Recovery::StepDone(TrainResult* r) {
  if (!recovering_) return;
  recovering_ = false;
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - failed_since_).count();
  r->recovery_ms_max = std::max(r->recovery_ms_max, ms);
}

// After falling back past a damaged checkpoint the run saves its step
// again: the new one replaces it (a good one is rewritten with the same
// values, since the steps between are recomputed alike).
Status Recovery::Save(int64_t step) {
  last_save_ = Clock::now();
  TACT_RETURN_IF_ERROR(DiscardCheckpoint(opt_.checkpoint_dir, step));
  return session_->Run({{nodes_.step, Tensor::Scalar<int64_t>(step)}}, {}, {nodes_.save}).status();
}

// Restores the newest good checkpoint (or, with none good, the initial
// values) into the variables; Unavailable while a task is still away.
StatusOr<int64_t> Recovery::Restore() {
  StatusOr<Checkpoint> c = ReadLatestGoodCheckpoint(opt_.checkpoint_dir, nodes_.expected);
  if (!c.ok() && c.status().code() == Code::kNotFound) {
    TACT_RETURN_IF_ERROR(session_->Run({}, {}, {graph_->init_op}).status());
    return int64_t{0};
  }
  TACT_RETURN_IF_ERROR(c.status());
  TACT_RETURN_IF_ERROR(
      session_->Run({{nodes_.step, Tensor::Scalar<int64_t>(c->step)}}, {}, {nodes_.restore}).status());
  return c->step;
}

}  // namespace tact::apps
