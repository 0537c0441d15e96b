// A write that fails under HDF5 (here: past the process's file size limit,
// `ulimit -f`, which no free-space check sees): a clear ResourceExhausted
// naming the file, nothing left behind, and a process that goes on saving
// and exits cleanly. Through HDF5's own driver the same write ended the
// process with SIGSEGV at exit (checkpoint/guarded_driver.h).
#include "checkpoint/guarded_driver.h"

#include <sys/resource.h>

#include <csignal>

#include "checkpoint_test_util.h"
#include "failed_save_child.h"

namespace tact {
namespace {

using testing::CheckpointDirTest;
using testing::RandomTensor;

using GuardedDriverTest = CheckpointDirTest;

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
    const Status s = WriteCheckpointShard(dir(), 0, 0, 1, {{"big/kernel", big}, {"big/kernel/Adam", big}});
    const bool refused = s.code() == Code::kResourceExhausted &&
                         testing::Contains(s, "cannot write checkpoint file '" + dir() + "/") &&
                         testing::Contains(s, "File too large");
    testing::ExitAfterFailedSave(dir(), s, refused);
  }
  EXPECT_EQ(testing::ChildExitStatus(pid), 0) << testing::kFailedSaveExitCodes;
}

// H5close ends every driver registration: a program that shuts HDF5 down
// and then saves again gets the driver registered afresh.
TEST_F(GuardedDriverTest, ASaveAfterHdf5WasShutDownWorks) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const testing::Variables vars = testing::DenseModel(3);
    if (!testing::Save(dir(), 1, vars).ok()) _exit(1);
    H5close();
    const Status again = testing::Save(dir(), 2, vars);
    if (!again.ok()) std::fprintf(stderr, "after H5close: %s\n", again.ToString().c_str());
    auto read = ReadCheckpoint(dir(), 2, testing::SpecsOf(vars));
    _exit(again.ok() && read.ok() && read->variables[0].second.BitwiseEqual(vars[0].second) ? 0 : 2);
  }
  EXPECT_EQ(testing::ChildExitStatus(pid), 0) << "1: the first save failed, 2: the save after H5close failed";
}

}  // namespace
}  // namespace tact
