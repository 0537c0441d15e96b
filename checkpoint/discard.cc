#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checkpoint/checkpoint.h"
#include "checkpoint/manifest.h"

namespace tact {

Status DiscardCheckpoint(const std::string& dir, int64_t step) {
  const std::string path = dir + "/" + checkpoint_internal::ManifestFileName(step);
  // Looked up first: on a read-only file system, removing a file that is not
  // there fails with EROFS, which hid the save's own error behind this one.
  struct stat st;
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) return Status::OK();
  if (std::remove(path.c_str()) != 0) {
    if (errno == ENOENT) return Status::OK();
    return errors::Internal("cannot remove ", path, ": ", std::strerror(errno));
  }
  // The removal is durable only once the directory is synced.
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0 || fsync(fd) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    return errors::Internal("cannot sync directory ", dir, ": ", why);
  }
  close(fd);
  return Status::OK();
}

}  // namespace tact
