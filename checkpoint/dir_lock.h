// One run at a time writes a checkpoint directory.
//
// Why: two runs saving into one directory write the same step numbers over
// each other, and each resumes from the other's checkpoints. Tried: a
// second `tact train --cluster C --checkpoint-dir D` started beside a
// running one (the first trainer thought dead, as it was only hung): both
// ended "successfully", with variables neither would have reached alone,
// and nothing said so. TensorFlow leaves this to its user; here the second
// run is refused at the start, naming the directory and the process that
// holds it.
//
// The lock is flock(2) on the directory itself: no file to leave behind
// (a directory of another model's checkpoints stays as it was), and the
// kernel drops it with its process however that ends, so a run killed with
// SIGKILL never leaves its directory locked. Readers (`tact ckpt`, a
// restore in another program) take no lock.
#pragma once

#include <string>

#include "graph/status.h"

namespace tact {

class CheckpointDirLock {
 public:
  // Locks the existing directory `dir`, or FailedPrecondition naming it
  // (and the process holding it, where /proc/locks tells) when another
  // CheckpointDirLock, in this process or another, holds it. On a file
  // system that cannot lock a directory it warns and returns a lock that
  // is not held().
  static StatusOr<CheckpointDirLock> Acquire(const std::string& dir);

  CheckpointDirLock() = default;
  CheckpointDirLock(CheckpointDirLock&& other) noexcept;
  CheckpointDirLock& operator=(CheckpointDirLock&& other) noexcept;
  CheckpointDirLock(const CheckpointDirLock&) = delete;
  CheckpointDirLock& operator=(const CheckpointDirLock&) = delete;
  ~CheckpointDirLock();  // unlocks

  bool held() const { return fd_ >= 0; }

 private:
  explicit CheckpointDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace tact
