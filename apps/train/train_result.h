// What a training run ends with (apps/train/trainer.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/tensor.h"

namespace tact::apps {

struct TrainResult {
  int64_t steps = 0;
  bool stopped = false;       // ended early by TrainOptions::stop_requested, after `steps`
  // Mean over the last epoch's steps, and the test accuracy after it; NaN
  // when not measured (a run that resumed at its end measures the test
  // accuracy only; a stopped run before its first epoch ended, neither).
  double train_loss = std::nan("");
  double test_accuracy = std::nan("");
  // The first step whose loss was NaN or infinite: the run diverged (too
  // high a learning rate, most often), and train_loss is that NaN, not a
  // figure left unmeasured. -1: none.
  int64_t loss_not_finite_at = -1;
  double images_per_sec = 0;  // training steps only, evaluation excluded
  std::string input = "feed";  // how the training set came: "feed" or "pipeline"
  int64_t steps_sent_ahead = 0;  // sync steps sent while the one before ran (DataOptions::send_ahead)
  // Async training without checkpoints or faults: the updates each replica
  // made (a slow one makes fewer; empty otherwise).
  std::vector<int64_t> tower_updates;
  int64_t parameters = 0;     // trainable scalars
  int ps = 0, workers = 0;    // tasks of the cluster trained on (0, 0: this process)
  int64_t resumed_from = -1;  // the checkpoint's step a run started from (-1: none)
  int faults_injected = 0;
  int recoveries = 0;         // failed steps survived by restoring a checkpoint
  int64_t steps_lost = 0;     // steps run again after recoveries
  double recovery_ms_max = 0; // from a failed step to the next completed one
  // A hash over every variable's name, dtype, shape and bytes (16 hex digits).
  std::string variables_fingerprint;
  // Every variable's final value, by name.
  std::vector<std::pair<std::string, Tensor>> variables;
};

}  // namespace tact::apps
