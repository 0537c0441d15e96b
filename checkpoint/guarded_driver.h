// An HDF5 file driver for writing checkpoint shards that never shows HDF5 a
// failed write.
//
// Why: HDF5 1.10 cannot survive a failed file close. When a write under a
// shard fails (a full disk where the space could not be claimed ahead, a
// quota on NFS, a file size limit, an I/O error), the close that follows
// fails to flush; the library frees the file's state but keeps its id, and
// at exit (or at the next call that walks its ids) touches the freed state:
// `tact train --checkpoint-dir` under `ulimit -f` printed its clear error
// and then died of SIGSEGV, every time. (Later HDF5 releases than Debian
// 12's 1.10.8 fixed it.) disk_space.h claims a shard's blocks before HDF5
// writes, which keeps most full disks away; this driver covers every other
// failure.
//
// It does what HDF5's own POSIX driver (sec2) does, pread and pwrite on one
// descriptor, but keeps the first failure to itself: HDF5 goes on as if the
// write had succeeded (later writes are skipped), its close succeeds, and
// the writer then reports the failure as a Status naming the file, and
// the file is removed. The files are plain HDF5: any reader opens them with
// its default driver (h5py, h5ls, tact's own reader).
//
// Thread-safety: HDF5 calls the driver under its global lock; each file has
// its own WriteFailure.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

#include "graph/status.h"

namespace tact::checkpoint_internal {

// The first failed operation on a file opened through the driver.
struct WriteFailure {
  const char* operation = nullptr;  // "write" or "truncate"; null: none failed
  int error = 0;                    // its errno
  uint64_t offset = 0, bytes = 0;   // where a write was to go

  bool failed() const { return operation != nullptr; }
  // ResourceExhausted for a full disk, a quota or a size limit, else
  // Internal; the message names `path`, the operation and the error.
  Status ToStatus(const std::string& path) const;
};

// Makes the file access property list `fapl` open files through the
// driver, recording into `*failure`, which must outlive every file opened
// with it. False if HDF5 refused.
bool UseGuardedDriver(hid_t fapl, WriteFailure* failure);

}  // namespace tact::checkpoint_internal
