#include "checkpoint/disk_space.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tact::checkpoint_internal {
namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status NoSpace(const std::string& path, uint64_t bytes, const std::string& why) {
  return errors::ResourceExhausted("not enough disk space for checkpoint file '", path, "': it needs about ",
                                   bytes, " bytes; ", why);
}

// Closes its file descriptor on every path out.
struct Fd {
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  int fd;
};

}  // namespace

Status CheckFreeSpace(const std::string& path, uint64_t bytes) {
  struct statvfs fs;
  if (statvfs(DirectoryOf(path).c_str(), &fs) != 0) return Status::OK();  // the create reports the directory
  const uint64_t available = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (available >= bytes) return Status::OK();
  return NoSpace(path, bytes, std::to_string(available) + " are free");
}

Status ReserveSpace(const std::string& path, uint64_t bytes) {
  Fd f(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (f.fd < 0) {
    return errors::Internal("cannot open checkpoint file '", path, "' to reserve its space: ",
                            std::strerror(errno));
  }
  if (fallocate(f.fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) == 0) return Status::OK();
  const int err = errno;
  if (err == ENOSPC || err == EDQUOT) {
    // ext4 keeps what it allocated before it ran out: the whole disk, held
    // by this file until it goes, failing every other writer meanwhile.
    ReleaseSpaceBeyondEnd(path, bytes);
    return NoSpace(path, bytes, std::strerror(err));
  }
  if (err == EOPNOTSUPP || err == ENOSYS) return Status::OK();
  return errors::Internal("cannot reserve ", bytes, " bytes for checkpoint file '", path, "': ",
                          std::strerror(err));
}

void ReleaseSpaceBeyondEnd(const std::string& path, uint64_t reserved) {
  Fd f(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  struct stat st;
  if (f.fd < 0 || fstat(f.fd, &st) != 0 || static_cast<uint64_t>(st.st_size) >= reserved) return;
  // ext4 frees the blocks beyond the end on a truncate to the same size and
  // ignores a hole punched there; tmpfs frees them on the punch.
  (void)ftruncate(f.fd, st.st_size);
  (void)fallocate(f.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, st.st_size,
                  static_cast<off_t>(reserved) - st.st_size);
}

}  // namespace tact::checkpoint_internal
