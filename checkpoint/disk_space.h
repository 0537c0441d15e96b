// Disk space for a checkpoint file, claimed before HDF5 writes any of it.
//
// Why: HDF5 1.10 cannot survive a failed file close. When the disk fills up
// under a shard's write, the close that follows fails to flush; the library
// frees the file's state but keeps its id, and at exit (or at the next call
// that walks its ids) touches the freed state: `tact train --checkpoint-dir`
// on a nearly full disk printed its clear error and then died of SIGSEGV,
// every time. (Later HDF5 releases than Debian 12's 1.10.8 fixed it.) So
// a shard first checks the free space, then claims its blocks, and HDF5
// never meets ENOSPC: a full disk is a ResourceExhausted that names the
// file.
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
