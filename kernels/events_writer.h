// An events file, the log TensorBoard reads summaries from (paper 9.1:
// "periodically, the client runs the summary nodes and writes data to a
// log file"): TFRecords (kernels/record_io.h) of Event messages
// (kernels/summary_proto.h), the first saying the file's format.
//
//   auto w = EventsWriter::Create("logs/run1");
//   auto out = session->Run({}, {"summaries:0"}, {});
//   (*w)->WriteSummary(step, out->at(0).scalar<std::string>());
//
// Each write is flushed, so `tensorboard --logdir logs` shows a run as it
// trains. A run resumed in the same directory writes a file of its own
// beside the old one, as TensorFlow's FileWriter does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "graph/status.h"
#include "kernels/record_io.h"

namespace tact {

class EventsWriter {
 public:
  // Creates `dir` if it is missing and in it
  // "events.out.tfevents.<unix seconds>.<host name>.<pid>.<n>"; the error
  // names the directory or the file.
  static StatusOr<std::unique_ptr<EventsWriter>> Create(const std::string& dir);

  // Writes an Event of the serialized Summary `summary` at global step
  // `step`, stamped with the wall time now.
  Status WriteSummary(int64_t step, std::string_view summary);

  const std::string& path() const { return path_; }

 private:
  EventsWriter(std::string path, std::unique_ptr<RecordWriter> records)
      : path_(std::move(path)), records_(std::move(records)) {}

  std::string path_;
  std::unique_ptr<RecordWriter> records_;
};

}  // namespace tact
