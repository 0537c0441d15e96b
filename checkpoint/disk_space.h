// Disk space for a checkpoint file, claimed before HDF5 writes any of it.
//
// Why: a shard that finds the disk full only halfway through has been
// written in vain, and HDF5 1.10 cannot survive a failed write under it
// (guarded_driver.h keeps such a failure from HDF5). So a shard first
// checks the free space, then claims its blocks, and a full disk is a
// ResourceExhausted that names the file before any of it is written.
//
// Blocking calls: never on a CAF thread.
#pragma once

#include <cstdint>
#include <string>

#include "graph/status.h"

namespace tact::checkpoint_internal {

// ResourceExhausted naming `path` when the file system that would hold
// `path` has fewer than `bytes` available to this user.
Status CheckFreeSpace(const std::string& path, uint64_t bytes);

// Allocates disk blocks for the first `bytes` of the existing file `path`
// without changing its size, so that writes within them cannot fail for
// lack of space. ResourceExhausted naming the file when the disk or the
// user's quota cannot hold them; OK, claiming nothing, on a file system
// that cannot allocate ahead (CheckFreeSpace alone then stood guard). A
// failed reservation claims nothing.
Status ReserveSpace(const std::string& path, uint64_t bytes);

// Gives back the blocks beyond the end of `path` that ReserveSpace(path,
// `reserved`) claimed and no write used. Best effort: a failure only costs
// space.
void ReleaseSpaceBeyondEnd(const std::string& path, uint64_t reserved);

}  // namespace tact::checkpoint_internal
