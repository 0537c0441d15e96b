// One shard of a checkpoint as an HDF5 file: its writer, and a reader that
// lists the variables from their attributes and reads each one checked.
//
// File layout (format "tact-checkpoint-2"; docs/checkpoints.md):
//   /                      attributes format, step, shard, num_shards,
//                          wall_time, checksum_algorithm
//   /<c1>/<c2>/.../<cn>    a group per component of a variable's name
//                          (UTF-8), so that a variable's slots
//                          ("kernel/Adam") hang under its own group
//   /<c1>/.../<cn>/:value  the variable: a dataset of its dtype
//                          (hdf5_util.h) and shape (a scalar is a scalar
//                          dataspace); attributes name (the full name),
//                          dtype ("float", as DataTypeString), step,
//                          wall_time, checksum (uint64, checksum.h)
// ':' never occurs in a TensorFlow name, so ":value" cannot be a component;
// a component of another name has '%' and ':' escaped as %25 and %3A.
// Format 1 (a dataset at the variable's full name, so that no variable
// could be the prefix of another) is still read.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/checksum.h"
#include "checkpoint/hdf5_util.h"

namespace tact::checkpoint_internal {

// InvalidArgument unless `name` is a '/'-separated path of non-empty
// components other than "." and "..", with no leading or trailing '/', of
// at most kMaxVariableNameBytes.
inline constexpr size_t kMaxVariableNameBytes = 4096;
Status ValidateVariableName(const std::string& name);

// Where format 2 keeps the variable `name` (a valid one).
std::string ValuePath(const std::string& name);

// Creates the HDF5 file `path` (which must not exist) and writes the
// variables into it, then closes it. No fsync: the caller commits the file
// (durable_file.h). On error the file may be partly written; the caller
// removes it.
Status WriteShardFile(const std::string& path, int64_t step, int shard, int num_shards,
                      double wall_time, const std::vector<std::pair<std::string, Tensor>>& variables);

// What a shard says of itself, from its attributes alone.
struct ShardIndex {
  int64_t step = 0;
  int shard = 0, num_shards = 0;
  double wall_time = 0;
  std::vector<StoredVariable> variables;  // sorted by name; `shard` set
};

// XXH3-64 of every variable's name, dtype, shape and checksum, in index
// order: the shard's checksum in the manifest. It covers what a reader relies
// on before reading the data; the data itself is covered by each variable's
// checksum, so committing a checkpoint does not read it again.
uint64_t ShardIndexChecksum(const ShardIndex& index);

// An open shard. Not thread-safe; one per thread, or one at a time.
class ShardReader {
 public:
  // Opens `path` read-only and reads its index. NotFound if there is no such
  // file; DataLoss naming the file if it is not a readable shard (truncated,
  // damaged, or not written by WriteShardFile).
  static StatusOr<std::unique_ptr<ShardReader>> Open(const std::string& path);

  const std::string& path() const { return path_; }
  const ShardIndex& index() const { return index_; }

  // Reads `v` (an entry of index()) and checks its checksum. DataLoss naming
  // the variable and the file if the data cannot be read or does not match;
  // ResourceExhausted if its memory cannot be had.
  StatusOr<Tensor> Read(const StoredVariable& v) const;

  // Where the elements of the variables that are not strings lie in the
  // file, sorted by offset: bytes HDF5 copies out and never parses, covered
  // by each variable's checksum. Every other byte is HDF5's structure
  // (superblock, headers, attributes, heaps) or a string variable's data
  // (heap references, which HDF5 follows).
  StatusOr<std::vector<ByteExtent>> PlainDataExtents() const;

 private:
  ShardReader(std::string path, H5Handle file) : path_(std::move(path)), file_(std::move(file)) {}
  Status ReadIndex();
  // The variables' datasets, by name, each checked against its path.
  Status ListVariables(std::vector<std::pair<std::string, std::string>>* out) const;
  std::string DatasetOf(const std::string& name) const;

  std::string path_;
  H5Handle file_;
  int format_ = 0;
  ShardIndex index_;
};

}  // namespace tact::checkpoint_internal
