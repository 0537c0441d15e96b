#include "checkpoint/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tact::checkpoint_internal {
namespace {

Status Errno(const char* what, const std::string& path) {
  const int e = errno;
  const std::string message = std::string(what) + " '" + path + "': " + std::strerror(e);
  return e == ENOENT ? Status(Code::kNotFound, message) : Status(Code::kInternal, message);
}

Status FsyncOpened(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open for fsync", path);
  // A failed fsync means the data may never reach the disk: the caller must
  // not go on to publish the file (and must not retry on the same fd, whose
  // error state the kernel has already cleared).
  const int r = ::fsync(fd);
  Status s = r == 0 ? Status::OK() : Errno("fsync failed on", path);
  ::close(fd);
  return s;
}

}  // namespace

std::string TempPathFor(const std::string& dir, const std::string& name) {
  static std::atomic<uint64_t> counter{0};
  return dir + "/." + name + ".tmp-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

bool IsTempName(const std::string& name) {
  return name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos;
}

Status FsyncFile(const std::string& path) { return FsyncOpened(path, O_RDONLY); }

Status FsyncDirectory(const std::string& dir) { return FsyncOpened(dir, O_RDONLY | O_DIRECTORY); }

Status CommitTempFile(const std::string& tmp_path, const std::string& dir, const std::string& name) {
  Status s = FsyncFile(tmp_path);
  const std::string final_path = dir + "/" + name;
  if (s.ok() && std::rename(tmp_path.c_str(), final_path.c_str()) != 0) {
    s = Errno("cannot rename temporary file to", final_path);
  }
  if (!s.ok()) {
    std::remove(tmp_path.c_str());
    return s;
  }
  // Without this the rename may be lost in a crash although the data is on
  // disk: the new name is an update of the directory, not of the file.
  return FsyncDirectory(dir);
}

Status WriteFileAtomically(const std::string& dir, const std::string& name, const std::string& bytes) {
  const std::string tmp = TempPathFor(dir, name);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Errno("cannot create", tmp);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !written) {
    std::remove(tmp.c_str());
    return errors::Internal("cannot write '", tmp, "'");
  }
  return CommitTempFile(tmp, dir, name);
}

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Errno("cannot open", path);
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return errors::DataLoss("cannot read '", path, "'");
  return out;
}

}  // namespace tact::checkpoint_internal
