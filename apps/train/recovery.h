// How a training loop saves checkpoints and comes through a failed step
// (paper 3.3: "the entire graph execution is aborted and restarted"; issue
// 7): the client's half of fault tolerance, what TensorFlow's
// MonitoredTrainingSession does. The session's supervisor
// (actors/supervisor.h) brings a lost task back and holds the Runs that
// need it; this restores the newest good checkpoint and says which step
// to go on from. It also injects the faults asked for (apps/cluster/faults.h).
//
//   Recovery recovery(opt, session, local_cluster, &graph);
//   TACT_RETURN_IF_ERROR(recovery.Init(total));    // before Extend
//   ... Extend, run the initializer ...
//   TACT_ASSIGN_OR_RETURN(int64_t step, recovery.Resume());
//   while (step < total) {
//     TACT_RETURN_IF_ERROR(recovery.Inject(step, &r));
//     Status s = RunStep(step);
//     if (!s.ok()) { TACT_ASSIGN_OR_RETURN(step, recovery.Recover(s, step, &r)); continue; }
//     recovery.StepDone(&r);
//     ++step;
//     ... recovery.MaybeSave(step, &r) (recovered from like a step) ...
//   }
#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "actors/session.h"
#include "apps/train/checkpoint_graph.h"
#include "apps/cluster/faults.h"
#include "apps/cluster/local_cluster.h"
#include "apps/train/replicated_graph.h"
#include "apps/train/train_options.h"
#include "apps/train/train_result.h"

namespace tact::apps {

class Recovery {
 public:
  // Reads opt's checkpoint and fault options. `cluster` may be null (a
  // local run, or a cluster someone else runs): only faults need it.
  Recovery(const TrainOptions& opt, Session* session, LocalCluster* cluster, ReplicatedTrainGraph* graph);

  // Parses the faults (and draws the chaos ones over `total_steps`), and
  // adds the checkpoint nodes to the graph, which is not extended yet.
  Status Init(int64_t total_steps);
  bool checkpointing() const { return !opt_.checkpoint_dir.empty(); }

  // The step to start from: the newest good checkpoint's, restored; or 0,
  // after saving the initial values as checkpoint 0, so that a failure
  // before the first save restores them rather than drawing new ones
  // (a seeded initializer draws other numbers in another step).
  StatusOr<int64_t> Resume();

  // After step `done` (1-based): saves when due.
  Status MaybeSave(int64_t done, TrainResult* r);

  // Faults due before step `step` (0-based).
  Status Inject(int64_t step, TrainResult* r);

  // A step failed with `why`; returns the step to go on from, with the
  // newest good checkpoint restored; or `why` itself when it is not a
  // failure a restore can follow (or nothing is checkpointed).
  StatusOr<int64_t> Recover(const Status& why, int64_t failed_at, TrainResult* r);

  // A step completed: the end of a recovery, if one was going on.
  void StepDone(TrainResult* r);

 private:
  using Clock = std::chrono::steady_clock;

  Status Save(int64_t step);
  StatusOr<int64_t> Restore();

  const TrainOptions& opt_;
  Session* session_;
  LocalCluster* cluster_;
  ReplicatedTrainGraph* graph_;
  CheckpointNodes nodes_;
  std::vector<Fault> faults_;
  std::set<std::string> done_;  // faults injected, by spec
  Clock::time_point last_save_ = Clock::now();
  Clock::time_point failed_since_;
  bool recovering_ = false;
};

}  // namespace tact::apps
