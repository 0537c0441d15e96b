// A checkpoint on a full disk: a clear ResourceExhausted naming the file,
// nothing left behind, and a process that goes on saving and exits cleanly
// (HDF5 1.10 crashed at exit after a failed close; checkpoint/disk_space.h).
#include "checkpoint/disk_space.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "checkpoint_test_util.h"
#include "failed_save_child.h"

namespace tact {
namespace {

using testing::CheckpointDirTest;
using testing::RandomTensor;

using DiskSpaceTest = CheckpointDirTest;

int64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_blocks) * 512 : -1;
}

TEST_F(DiskSpaceTest, MoreThanTheDiskHoldsIsResourceExhaustedNamingTheFile) {
  const std::string path = Path("shard.h5");
  Status s = checkpoint_internal::CheckFreeSpace(path, uint64_t{1} << 62);
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  EXPECT_TRUE(checkpoint_internal::CheckFreeSpace(path, 4096).ok());
}

TEST_F(DiskSpaceTest, ReservedBlocksAreClaimedAndTheUnusedOnesGivenBack) {
  const std::string path = Path("file");
  { std::ofstream(path) << "x"; }
  const uint64_t reserve = uint64_t{8} << 20;
  ASSERT_TRUE(checkpoint_internal::ReserveSpace(path, reserve).ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1);  // the size stays
  if (AllocatedBytes(path) < static_cast<int64_t>(reserve)) {
    GTEST_SKIP() << "this file system does not allocate ahead (" << AllocatedBytes(path)
                 << " bytes allocated)";
  }
  checkpoint_internal::ReleaseSpaceBeyondEnd(path, reserve);
  EXPECT_LT(AllocatedBytes(path), 1 << 20);

  struct statvfs fs;
  ASSERT_EQ(statvfs(dir().c_str(), &fs), 0);
  const uint64_t twice_the_disk = 2 * static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
  Status s = checkpoint_internal::ReserveSpace(path, twice_the_disk);
  EXPECT_EQ(s.code(), Code::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  // Nothing kept: ext4 had claimed every free block before it gave up, and
  // a concurrent checkpoint writer then failed for want of space (a CI run).
  EXPECT_LT(AllocatedBytes(path), 1 << 20);
}

constexpr int kNoNamespace = 40;  // the child's exit: no user namespace or tmpfs here, skip

// Mounts a tmpfs of 1 MiB over `dir` in a user and mount namespace of its
// own (no privilege needed where user namespaces are allowed).
bool MountSmallDisk(const std::string& dir) {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
  auto write = [](const char* file, const std::string& text) {
    std::ofstream f(file);
    f << text;
    return static_cast<bool>(f.flush());
  };
  if (!write("/proc/self/setgroups", "deny") ||
      !write("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
      !write("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
    return false;
  }
  return mount("tact_small", dir.c_str(), "tmpfs", 0, "size=1m") == 0;
}

TEST_F(DiskSpaceTest, AShardTooBigForTheDiskFailsCleanlyAndTheProcessGoesOn) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!MountSmallDisk(dir())) _exit(kNoNamespace);
    const Tensor big = RandomTensor(DT_FLOAT, {512, 1024}, 1);  // 2 MiB
    const Status s = WriteCheckpointShard(dir(), 0, 0, 1, {{"big/kernel", big}});
    testing::ExitAfterFailedSave(dir(), s, s.code() == Code::kResourceExhausted &&
                                               testing::Contains(s, "not enough disk space"));
  }
  const int status = testing::ChildExitStatus(pid);
  if (status == kNoNamespace) GTEST_SKIP() << "cannot mount a small tmpfs in a user namespace here";
  EXPECT_EQ(status, 0) << testing::kFailedSaveExitCodes;
}

}  // namespace
}  // namespace tact
