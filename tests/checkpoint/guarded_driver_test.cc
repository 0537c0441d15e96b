// A write that fails under HDF5 (here: past the process's file size limit,
// `ulimit -f`, which no free-space check sees): a clear ResourceExhausted
// naming the file, nothing left behind, and a process that goes on saving
// and exits cleanly. Through HDF5's own driver the same write ended the
// process with SIGSEGV at exit (checkpoint/guarded_driver.h).
#include "checkpoint/guarded_driver.h"

#include <H5public.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>

#include "checkpoint_test_util.h"

namespace tact {
namespace {

using testing::CheckpointDirTest;
using testing::RandomTensor;

using GuardedDriverTest = CheckpointDirTest;

// Exit codes of the child below.
constexpr int kBigShardNotRefused = 41;
constexpr int kLeftFiles = 42;
constexpr int kSmallShardFailed = 43;
constexpr int kReadBackFailed = 44;

// Files may grow to 1 MiB; a write past it fails with EFBIG (the signal
// that would end the process instead is ignored, as a shell's `trap` does).
void LimitFileSize() {
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{1 << 20, 1 << 20};
  setrlimit(RLIMIT_FSIZE, &limit);
}

TEST_F(GuardedDriverTest, AWriteThatFailsUnderHdf5IsAClearErrorAndTheProcessGoesOn) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    LimitFileSize();
    const Tensor big = RandomTensor(DT_FLOAT, {512, 1024}, 1);  // 2 MiB
    Status s = WriteCheckpointShard(dir(), 0, 0, 1, {{"big/kernel", big}, {"big/kernel/Adam", big}});
    if (s.code() != Code::kResourceExhausted ||
        s.message().find("cannot write checkpoint file '" + dir() + "/") == std::string::npos ||
        s.message().find("File too large") == std::string::npos) {
      std::fprintf(stderr, "big shard: %s\n", s.ToString().c_str());
      _exit(kBigShardNotRefused);
    }
    if (!std::filesystem::is_empty(dir())) _exit(kLeftFiles);
    const Tensor small = RandomTensor(DT_FLOAT, {64, 64}, 2);
    if (!WriteCheckpointShard(dir(), 1, 0, 1, {{"small", small}}).ok() ||
        !CommitCheckpoint(dir(), 1, 1).ok()) {
      _exit(kSmallShardFailed);
    }
    auto read = ReadCheckpoint(dir(), 1, {{"small", DT_FLOAT, small.shape()}});
    if (!read.ok() || !read->variables[0].second.BitwiseEqual(small)) _exit(kReadBackFailed);
    // HDF5's own teardown, which crashed after a failed close.
    H5close();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "41: big shard not refused, 42: files left, 43: small shard failed, "
                                       "44: read back failed";
}

}  // namespace
}  // namespace tact
