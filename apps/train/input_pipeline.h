// `tact train --input-pipeline` (paper 4.5): each tower's images and labels
// come from input ops on the tower's own device, not through the client.
// Per tower: two filename queues (the training set's IDX files, once per
// epoch), a FixedLengthRecordReader for each, DecodeRaw, and a seeded
// RandomShuffleQueue of examples that the tower dequeues its share of the
// batch from; the tower's image and label placeholders become Identities of
// that dequeue. A QueueRunner per tower keeps its queue fed; the client's
// Runs carry no data.
//
// Each tower reads the whole training set, in an order of its own (its seed
// is the run's seed and the tower's index); an epoch is still 60,000
// examples over all towers. The images and labels of a tower are read by
// one runner thread, in lockstep, so they stay paired.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actors/queue_runner.h"
#include "apps/train/replicated_graph.h"
#include "apps/train/train_options.h"

namespace tact::apps {

struct InputPipeline {
  struct Tower {
    std::string fill;     // enqueues the filenames and closes the filename queues
    std::string enqueue;  // reads records into the example queue
    std::string close;    // closes the example queue, cancelling waits
  };
  std::vector<Tower> towers;
};

// Adds a pipeline for each tower of `g` (whose share of a batch is `share`
// examples) and rewires the towers' placeholders to it.
StatusOr<InputPipeline> AddInputPipeline(const TrainOptions& opt, int64_t share, ReplicatedTrainGraph* g);

// Fills the filename queues and starts a runner per tower.
StatusOr<std::vector<std::unique_ptr<QueueRunner>>> StartInputPipeline(Session& session,
                                                                        const InputPipeline& p);

// A training step's error, or the runner failure behind it: a runner that
// fails closes its queue, so the step then finds it closed (OutOfRange),
// which names the effect and not the cause. OK stays OK.
Status WithPipelineCause(const Status& step, const std::vector<std::unique_ptr<QueueRunner>>& runners);

}  // namespace tact::apps
