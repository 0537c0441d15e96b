#include "checkpoint/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "graph/logging.h"

namespace tact {
namespace {

// The process holding an flock on the file of `st`, as /proc/locks lists
// it ("1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF", the
// device numbers in hex); -1 when it is not there or cannot be read.
long HolderOf(const struct stat& st) {
  char id[64];
  std::snprintf(id, sizeof id, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string n, kind, mode, access, file;
    long pid = -1;
    if (in >> n >> kind >> mode >> access >> pid >> file && kind == "FLOCK" && file == id) return pid;
  }
  return -1;
}

}  // namespace

StatusOr<CheckpointDirLock> CheckpointDirLock::Acquire(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return errors::InvalidArgument("checkpoint directory '", dir, "': ", std::strerror(errno));
  }
  CheckpointDirLock lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return lock;
  if (errno != EWOULDBLOCK) {
    // A file system that cannot lock a directory (NFS may map flock onto
    // byte-range locks, which a read-only descriptor cannot take) must not
    // stop a run that the lock only guards.
    LogWarning("tact: cannot lock checkpoint directory '", dir, "' (", std::strerror(errno),
               "); going on without: no other run may save into it meanwhile");
    return CheckpointDirLock();
  }
  struct stat st;
  const long holder = ::fstat(fd, &st) == 0 ? HolderOf(st) : -1;
  return errors::FailedPrecondition(
      "checkpoint directory '", dir, "' is in use by another run",
      holder > 0 ? " (process " + std::to_string(holder) + ")" : std::string(),
      "; two runs saving into one directory would overwrite each other's checkpoints: "
      "give this run a directory of its own, or stop the other");
}

CheckpointDirLock::CheckpointDirLock(CheckpointDirLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

CheckpointDirLock& CheckpointDirLock::operator=(CheckpointDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

CheckpointDirLock::~CheckpointDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor drops the flock
}

}  // namespace tact
