// Save and Restore in the graph (paper 3.3: "each Variable node is
// connected to a Save node"; "each Variable is connected to a Restore node
// that is only enabled in the first iteration after a restart"). Their
// kernels (checkpoint/kernels/) write and read checkpoint/checkpoint.h's
// HDF5 shards, on the device's threads, never on a CAF thread.
//
//   // per ps task i of n, next to the variables it holds:
//   Node* save = SaveShard(ps_i, step, names, values, dir, i, n);
//   // once every shard is written:
//   Node* commit = CommitCheckpoint(s.WithControlDependencies({saves}), step, dir, n, keep);
//   // on a (re)start, per ps task, fed the step to restore:
//   std::vector<Output> v = RestoreShard(ps_i, step, names, dtypes, shapes, dir);
#pragma once

#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// Writes `values` (named `names`, same order) as shard `shard` of
// `num_shards` of the checkpoint of `step` (an int64 scalar) in `dir`.
Node* SaveShard(const Scope& scope, Input step, const std::vector<std::string>& names,
                const std::vector<Output>& values, const std::string& dir, int shard, int num_shards);

// Commits the checkpoint of `step` once its shards exist (the manifest is
// written last), then keeps the newest `keep` checkpoints (0: all).
Node* CommitCheckpoint(const Scope& scope, Input step, const std::string& dir, int num_shards, int keep);

// The values of `names` in the checkpoint of `step` in `dir`, checked
// against `dtypes` and `shapes` (other variables of the checkpoint, held
// by other tasks, are not read).
std::vector<Output> RestoreShard(const Scope& scope, Input step, const std::vector<std::string>& names,
                                 const std::vector<DataType>& dtypes,
                                 const std::vector<PartialTensorShape>& shapes, const std::string& dir);

}  // namespace tact
