// The names of a checkpoint's files, and its manifest: the small file,
// written last and atomically, whose presence makes a step a checkpoint.
//
//   ckpt-<step>.shard-<i>-of-<n>.h5   one per ps task (shard i of n)
//   ckpt-<step>.manifest              JSON: the step and every shard, with
//                                     its size and checksum
//
// A shard without a manifest is an unfinished checkpoint (a task died while
// writing, or the others have not finished): readers ignore it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checksum.h"
#include "graph/status.h"

namespace tact::checkpoint_internal {

std::string ShardFileName(int64_t step, int shard, int num_shards);
std::string ManifestFileName(int64_t step);

// What a file name in a checkpoint directory says; nullopt for any other
// name (temporary files included).
struct CheckpointFileName {
  bool manifest = false;
  int64_t step = 0;
  int shard = 0, num_shards = 0;  // shards only
};
std::optional<CheckpointFileName> ParseCheckpointFileName(const std::string& name);

struct ManifestShard {
  std::string file;       // name within the directory
  int64_t bytes = 0;      // file size: a truncated shard is refused before HDF5 opens it
  uint64_t checksum = 0;  // ShardIndexChecksum of the shard (shard_file.h)
  int64_t variables = 0;
  // Every byte of the file but the elements of its variables that are not
  // strings (ShardReader::PlainDataExtents), and their checksum: checked
  // before HDF5 opens the file, as HDF5 1.10 crashed (SIGSEGV) on shards with
  // a few bytes of their metadata changed. The elements are covered by each
  // variable's checksum. Absent from manifests written before session 25.
  std::vector<ByteExtent> metadata_extents;  // sorted, disjoint, within `bytes`
  std::optional<uint64_t> metadata_checksum;
};

struct Manifest {
  int64_t step = 0;
  double wall_time = 0;  // seconds since the epoch, when committed
  std::vector<ManifestShard> shards;  // shard i at index i
};

std::string SerializeManifest(const Manifest& m);
// DataLoss naming `path` if the text is not a well-formed manifest.
StatusOr<Manifest> ParseManifest(const std::string& text, const std::string& path);

}  // namespace tact::checkpoint_internal
