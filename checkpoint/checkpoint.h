// Checkpoints (paper 3.3): the variables of a training step, saved to HDF5
// files so that a restarted run can restore them.
//
//   // each ps task i of n, for step 1000:
//   TACT_RETURN_IF_ERROR(WriteCheckpointShard(dir, 1000, i, n, my_variables));
//   // then one task (the chief), once every shard is written:
//   TACT_RETURN_IF_ERROR(CommitCheckpoint(dir, 1000, n));
//   TACT_RETURN_IF_ERROR(PruneCheckpoints(dir, /*keep=*/5));
//   // on a start or a restart:
//   StatusOr<Checkpoint> c = ReadLatestGoodCheckpoint(dir, graph_variables);
//
// Layout (docs/checkpoints.md): one HDF5 file per shard, a group per
// component of a variable's name and its value in the dataset ":value" of
// its own group ("dense_1/kernel" is /dense_1/kernel/:value, its Adam slot
// /dense_1/kernel/Adam/:value; h5ls -r, h5dump and h5py read them), with
// attributes name, dtype, step, wall_time and checksum (XXH3-64,
// checksum.h). A JSON manifest, written last, names the step and every
// shard with its size and checksum (manifest.h). Every file is written under
// a temporary name, fsynced, renamed and its directory fsynced, so no
// half-written file is ever visible under a checkpoint's name; and a step is
// a checkpoint only once its manifest exists, so a checkpoint whose writer
// died in the middle is invisible too.
//
// Reading trusts nothing: the manifest must parse, every shard must have the
// size and checksum the manifest gives, every variable its checksum, and its
// dtype and shape those the caller expects. Errors name the file and the
// variable; ReadLatestGoodCheckpoint falls back to older checkpoints.
//
// Threads: every function here does blocking file I/O (fsync can take tens of
// milliseconds; reading a checkpoint, seconds). Call them on a thread the
// runtime gives to I/O, never on a CAF scheduler thread. They may be called
// from several threads at once; HDF5 runs one call at a time (one global lock
// in Debian's thread-safe build). Two writers must not write the same shard of
// the same step.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/status.h"
#include "graph/tensor.h"

namespace tact {

// Writes shard `shard` of `num_shards` of step `step` to `dir` (which must
// exist): every variable under its name. Names are '/'-separated paths of
// non-empty components other than "." and ".." (any other bytes: dots,
// spaces, UTF-8), of at most 4096 bytes; one name may be the prefix of
// another ("kernel" and its slot "kernel/Adam"). Any dtype but
// DT_RESOURCE, strings included (with any bytes, NULs too).
// On success the shard file is durable under its final name; on error no file
// of that name was created or changed (a temporary file may remain after a
// crash, invisible to the functions below). AlreadyExists if step `step` is
// already committed: a committed checkpoint is never changed.
Status WriteCheckpointShard(const std::string& dir, int64_t step, int shard, int num_shards,
                            const std::vector<std::pair<std::string, Tensor>>& variables);

// Makes step `step` a checkpoint: checks that all `num_shards` shards exist,
// are readable and are of this step, then writes the manifest atomically.
// Does not read the variables' data (that is the reader's job), only each
// shard's index. NotFound naming the first missing shard; DataLoss naming a
// damaged one; InvalidArgument if two shards hold the same variable. On error
// no manifest exists.
Status CommitCheckpoint(const std::string& dir, int64_t step, int num_shards);

// Makes step `step` no checkpoint: its manifest is removed (durably), so
// that the step can be saved again: a run that fell back past a damaged
// checkpoint writes its step anew. OK if it was not committed.
Status DiscardCheckpoint(const std::string& dir, int64_t step);

// The committed steps in `dir` (those with a manifest), oldest first. Says
// nothing about whether they are good: reading tells.
StatusOr<std::vector<int64_t>> ListCheckpoints(const std::string& dir);

// What the graph expects of a variable.
struct VariableSpec {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
};

struct Checkpoint {
  int64_t step = 0;
  double wall_time = 0;  // seconds since the epoch, when committed
  // The values of the expected variables, in the caller's order.
  std::vector<std::pair<std::string, Tensor>> variables;
  // ReadLatestGoodCheckpoint only: why each newer checkpoint was refused.
  std::vector<Status> refused;
};

// Reads step `step` and checks it against `expected`: every expected variable
// must be in the checkpoint with that dtype and shape and an intact checksum,
// and the checkpoint must hold no other variable (a mismatch with the graph).
// With `allow_other_variables`, others are ignored and not read: a ps task
// restoring only its own variables.
// Errors (nothing is returned then): NotFound (no manifest for the step, or a
// missing shard), DataLoss (damaged manifest, truncated or corrupt shard, a
// checksum mismatch), InvalidArgument (a dtype, shape or variable set other
// than expected). Each names the file and, where there is one, the variable.
StatusOr<Checkpoint> ReadCheckpoint(const std::string& dir, int64_t step,
                                    const std::vector<VariableSpec>& expected,
                                    bool allow_other_variables = false);

// The newest checkpoint that ReadCheckpoint accepts, read; newer damaged
// ones (NotFound, DataLoss) are skipped and their errors kept in `refused`.
// NotFound if there is no checkpoint at all, or none is good (the message
// then gives every reason). InvalidArgument, looking no further, at the
// first one that is intact but of another graph (a variable missing, of
// another dtype or shape, or one the graph does not have): the directory
// holds another model's checkpoints, and they are nobody's to skip or drop.
StatusOr<Checkpoint> ReadLatestGoodCheckpoint(const std::string& dir,
                                              const std::vector<VariableSpec>& expected,
                                              bool allow_other_variables = false);
// The step of ReadLatestGoodCheckpoint (which reads every variable to know).
StatusOr<int64_t> LatestGoodCheckpoint(const std::string& dir, const std::vector<VariableSpec>& expected);

// Keeps the newest `keep` (>= 1) committed checkpoints and deletes the rest:
// each one's manifest first (so it stops being a checkpoint at once), then its
// shards; also shards and temporary files of uncommitted steps older than the
// oldest kept (a dead writer's leftovers). Newer uncommitted files are a
// checkpoint being written, and are left alone. Counting is by manifest, not
// by reading: a damaged checkpoint counts toward `keep`.
Status PruneCheckpoints(const std::string& dir, int keep);

// ---- Inspection, for `tact ckpt` --------------------------------------------

struct StoredVariable {
  std::string name;
  DataType dtype = DT_INVALID;
  TensorShape shape;
  uint64_t checksum = 0;
  int shard = 0;
};

struct ShardInfo {
  std::string file;  // name within the directory
  int64_t bytes = 0;
  uint64_t checksum = 0;  // as the manifest gives it
};

struct CheckpointInfo {
  int64_t step = 0;
  double wall_time = 0;
  std::vector<ShardInfo> shards;
  std::vector<StoredVariable> variables;  // sorted by name
};

// The manifest and every shard's index (names, dtypes, shapes, checksums),
// checked for consistency but without reading the variables' data. Errors as
// ReadCheckpoint's.
StatusOr<CheckpointInfo> DescribeCheckpoint(const std::string& dir, int64_t step);

// Reads every variable of step `step` and checks its checksum, dtype and
// shape against what the file says (there is no graph to compare with).
Status VerifyCheckpoint(const std::string& dir, int64_t step);

}  // namespace tact
