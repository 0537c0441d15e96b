// A training run's scalars over time, as JSON lines (what TensorBoard's
// scalar summaries hold, paper 9.1, in a form any plotting tool reads):
//
//   {"step":120,"epoch":0,"loss":0.4123,"images_per_sec":53210.5,"wall_time":1765029337.21}
//   {"epoch":0,"step":600,"test_accuracy":0.8312,"wall_time":1765029339.02}
//
// A step's line after each step that completed (each epoch's, for async
// replicas run in loops of their own), an epoch's after its evaluation.
// Lines are appended and flushed one by one: a run that resumes from a
// checkpoint continues the curve (steps run again after a recovery appear
// twice), and a run that dies keeps every line it wrote. A line that cannot
// be written (a full disk) is said once on stderr, and the run goes on: the
// metrics are not worth the training.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "apps/train/train_options.h"
#include "graph/status.h"

namespace tact::apps {

class MetricsLog {
 public:
  // Opens `path` for appending; the error names it.
  static StatusOr<std::unique_ptr<MetricsLog>> Open(const std::string& path);
  ~MetricsLog();

  void Step(const TrainProgress& p);
  void Epoch(int epoch, double test_accuracy);

 private:
  MetricsLog(std::FILE* f, std::string path) : file_(f), path_(std::move(path)) {}
  void Line(const std::string& json);

  std::FILE* file_;
  const std::string path_;
  int64_t last_step_ = 0;
  bool write_failed_ = false;  // said once on stderr; training goes on
};

}  // namespace tact::apps
