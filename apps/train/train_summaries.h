// TensorBoard's view of a training run (paper 9.1), as TensorFlow's
// MonitoredTrainingSession writes it into a summary_dir: every N steps,
// and after the last, the step's loss, the images/s so far and a
// histogram of each trainable variable after the step's update; after
// each epoch the test accuracy. `tact train --summary-dir logs`, then
// `tensorboard --logdir logs` (or scripts/read_events.py).
//
// The histograms are graph nodes (summaries/..., beside their variables,
// so a parameter server sends only the summary); the scalars are numbers
// the client already has and writes as summaries itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "actors/session.h"
#include "apps/train/replicated_graph.h"
#include "apps/train/train_options.h"
#include "kernels/events_writer.h"

namespace tact::apps {

class TrainSummaries {
 public:
  // Adds the variables' histograms to `graph` and opens an events file in
  // `dir`, for a run of `total_steps`; InvalidArgument for `every_steps`
  // below 1, naming --summary-every-steps.
  static StatusOr<std::unique_ptr<TrainSummaries>> Create(const std::string& dir, int64_t every_steps,
                                                          int64_t total_steps, ReplicatedTrainGraph* graph);

  // Whether the step that brings the run to `steps_done` steps writes
  // summaries: every `every_steps`-th and the last.
  bool Due(int64_t steps_done) const;

  // Runs the histograms, right after the step's update and before another
  // step starts; a failure is the step's (so recovered from, then run
  // again), not only the summary's.
  Status RunHistograms(Session& session);
  // Writes the loss and images/s of `p` with the histograms run last, at
  // global step p.step.
  void WriteStep(const TrainProgress& p);
  void WriteTestAccuracy(int64_t steps_done, double accuracy);

 private:
  TrainSummaries(std::unique_ptr<EventsWriter> writer, int64_t every_steps, int64_t total_steps,
                 std::string histograms)
      : writer_(std::move(writer)), every_steps_(every_steps), total_steps_(total_steps),
        histograms_(std::move(histograms)) {}
  // A summary that cannot be written (a full disk) is said once on stderr,
  // and the run goes on: TensorBoard's curves are not worth the training.
  void Write(int64_t step, const std::string& summary);

  std::unique_ptr<EventsWriter> writer_;
  const int64_t every_steps_, total_steps_;
  const std::string histograms_;  // "name:0" of the merged histograms
  std::string last_histograms_;
  bool write_failed_ = false;
};

}  // namespace tact::apps
