// What a training run is asked to do (apps/train/trainer.h runs it): the model
// and data, the optimizer, the cluster, checkpoints, faults and recovery,
// and callbacks for progress.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/supervision_options.h"

namespace tact {
struct GraphDef;     // graph/graph_def.h
struct RunMetadata;  // actors/session.h
}

namespace tact::apps {

inline constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";

// Where training is after a step, for progress reports.
struct TrainProgress {
  int64_t step = 0;         // steps done so far
  int64_t total_steps = 0;  // steps the run will take
  int64_t batch = 0;        // images per step
  int epoch = 0;            // 0-based
  double loss = 0;          // of this step's batch
  double images_per_sec = 0;
};

// The network and how it learns.
struct ModelOptions {
  std::string name = "mlp";        // "mlp" or "cnn" (graph/nn/models.h)
  // "adam", "sgd", "momentum" (0.9), "rmsprop" or "adagrad" (Keras's
  // defaults: graph/nn/optimizers.h).
  std::string optimizer = "adam";
  // Unset: the optimizer's own default (LearningRate, train_graph.h).
  std::optional<double> learning_rate;
  // With lr_decay_steps > 0 the rate decays as learning_rate *
  // lr_decay_rate ^ (step / lr_decay_steps), the exponent floored with
  // lr_staircase (graph/nn/schedules.h's ExponentialDecay); 0: constant.
  int64_t lr_decay_steps = 0;
  double lr_decay_rate = 1.0;
  bool lr_staircase = false;
  // With lr_values, the rate is lr_values[i] while the step is past
  // lr_boundaries[i-1] and at most lr_boundaries[i] (Keras's
  // PiecewiseConstantDecay, graph/nn/schedules.h), in place of
  // learning_rate; one value more than boundaries.
  std::vector<int64_t> lr_boundaries;
  std::vector<double> lr_values;
  // > 0: the update's gradients are clipped to this global norm
  // (graph/nn/clipping.h), after the replicas' mean; 0: not clipped.
  double clip_norm = 0;
  uint64_t seed = 1;
  // Every gradient passes CheckNumerics; a non-finite one fails the step
  // before any variable changes.
  bool check_numerics = false;
};

// What it learns from, and for how long.
struct DataOptions {
  std::string dir = kDefaultDataDir;
  int epochs = 1;
  int64_t batch = 100;
  // Use only the first N training / test images (0: all); for short runs.
  int64_t train_limit = 0;
  int64_t test_limit = 0;
  // Stop after this many steps in all (0: run every epoch to the end).
  int64_t max_steps = 0;
  // Read the training set with input ops on each tower's device instead of
  // feeding it from the client (apps/train/input_pipeline.h).
  bool input_pipeline = false;
  // Send each sync step ahead, while the one before runs
  // (Session::StartFollowing): the same values, without the hand-offs
  // between steps on the step's path. False: one step at a time.
  bool send_ahead = true;
};

// Where it runs.
struct ClusterOptions {
  int intra_op_threads = 2;
  // CPU and GPU devices of the session; the placer spreads the graph over
  // them. A session asking for more GPUs than CUDA finds fails, naming the
  // counts. (The cluster modes run on each task's one CPU device.)
  int devices = 1;
  int gpus = 0;
  // Data-parallel training on a cluster (paper 7): with workers > 0, one
  // model replica per worker task, each on its share of every batch, and
  // the variables on the ps tasks (apps/train/replicated_graph.h). Sync
  // mode averages the replicas' gradients into one update per step; async
  // mode lets each replica update the variables on its own.
  int ps = 0;
  int workers = 0;
  bool sync = true;
  // An existing cluster (TF_CONFIG-style JSON with "ps" and "worker"
  // jobs; its task counts win over ps and workers). Empty: start a local
  // cluster of `worker_binary` processes (the tact executable).
  std::string cluster_file;
  std::string secret_file;  // the existing cluster's secret (default: $TACT_CLUSTER_SECRET)
  // How long the run waits for an existing cluster's tasks to answer at
  // the start: they may still be starting (machines booting, containers
  // pulled), in whatever order whoever runs the cluster starts them.
  double connect_wait_secs = 60;
  std::string worker_binary;
  // On a cluster, a step still running after this long is aborted and
  // counts as failed (so recovered from), rather than hanging the run.
  int64_t step_timeout_ms = 10000;
};

// Checkpoints, faults and recovery (actors/supervised_session.h does them).
struct TrainSupervision {
  // Every N steps and/or every N seconds, keeping the newest `keep`. A run
  // started on a directory with checkpoints resumes from the latest good one.
  CheckpointOptions checkpoint;
  // Faults to inject (apps/cluster/faults.h).
  std::vector<std::string> faults;
  // And `chaos_faults` more, drawn from `chaos_seed`.
  uint64_t chaos_seed = 0;
  int chaos_faults = 0;
  // How a failed step is survived on a cluster: the session's supervisor
  // brings the lost task back (a local cluster's process is started again;
  // an external cluster's is waited for, up to `task_wait_secs`), and the
  // variables are restored from the latest good checkpoint. More than
  // `max_restarts` task losses within `restart_window_secs` end the run
  // with an error.
  int max_restarts = 5;
  double restart_window_secs = 60;
  double task_wait_secs = 60;
};

struct TrainOptions {
  ModelOptions model;
  DataOptions data;
  ClusterOptions cluster;
  TrainSupervision supervision;
  // TensorBoard's summaries (apps/train/train_summaries.h) in this
  // directory, every summary_every_steps steps; empty: none.
  std::string summary_dir;
  int64_t summary_every_steps = 100;
  std::function<void(const TrainProgress&)> on_step;
  // After each epoch's evaluation.
  std::function<void(int epoch, double test_accuracy)> on_epoch;
  // Asked before each step (each update, for asynchronous replicas): true
  // ends the run early but whole, at the step reached, with a checkpoint of
  // it when checkpoints are on (tact train's SIGINT and SIGTERM).
  std::function<bool()> stop_requested;
  // With trace_step >= 0, sync step trace_step (its first run) runs by
  // itself, with its step stats, which on_trace gets with the graph that
  // ran (`tact train --trace`); kTraceStepDefault: step 10, or the last of
  // a shorter run (the first steps also allocate and touch memory afresh).
  static constexpr int64_t kTraceStepDefault = -2;
  int64_t trace_step = -1;
  std::function<void(int64_t step, const RunMetadata&, const GraphDef&)> on_trace;
};

}  // namespace tact::apps
