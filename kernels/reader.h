// Readers (paper 4.5: input nodes that "read directly from the storage
// system into the memory of the machine that will use them"): a resource in
// a container, like a queue, that reads records from the files a queue of
// filenames names, one file after another, on the device of the op that
// reads. TensorFlow's three: fixed-length records after a header (the IDX
// files), lines of text, and records of the TFRecord format
// (kernels/record_io.h). Each record comes with a key "<file>:<index>".
//
// Reads are served one at a time, in the order they came; a read that needs
// another file waits (without a thread) for the filename queue.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/record_io.h"
#include "kernels/resource_mgr.h"

namespace tact {

class Reader : public ResourceBase {
 public:
  // Gives the next filename, or the queue's error (OutOfRange once it is
  // closed and empty: the end of the input).
  using FileDone = std::function<void(const Status&, const std::string& path)>;
  using NextFile = std::function<void(FileDone)>;
  using ReadDone =
      std::function<void(const Status&, std::vector<std::string> keys, std::vector<std::string> values)>;

  // Reads `n` records (>= 1), across files. At the end of the input it
  // gives what it has, or OutOfRange when that is nothing.
  void ReadUpTo(int64_t n, NextFile next_file, ReadDone done);
  virtual std::string kind() const = 0;
  std::string DebugString() const override { return "a " + kind(); }

 protected:
  // Called once a file is open, before its first record (a header).
  virtual Status Start(InputFile*) { return Status::OK(); }
  // The file's next record into *value; false at its end.
  virtual StatusOr<bool> Next(InputFile* file, std::string* value) = 0;

 private:
  struct Job {
    int64_t n;
    NextFile next_file;
    ReadDone done;
    std::vector<std::string> keys, values;
  };
  void Continue(const std::shared_ptr<Job>& job);
  void Finish(const std::shared_ptr<Job>& job, const Status& status);

  std::mutex mu_;
  std::unique_ptr<InputFile> file_;
  int64_t record_ = 0;  // index of the current file's next record
  bool busy_ = false;
  std::deque<std::shared_ptr<Job>> waiting_;
};

struct FixedLengthOptions {
  int64_t header_bytes = 0;
  int64_t record_bytes = 1;
  int64_t footer_bytes = 0;
};
std::shared_ptr<Reader> NewFixedLengthRecordReader(const FixedLengthOptions& options);
std::shared_ptr<Reader> NewTextLineReader(int64_t skip_header_lines);
std::shared_ptr<Reader> NewTFRecordReader();

}  // namespace tact
