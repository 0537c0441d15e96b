// One run at a time per checkpoint directory (checkpoint/dir_lock.h): a
// second lock, in this process or another, is refused naming the directory
// and the holder; the lock goes with its holder, a SIGKILLed process too.
#include "checkpoint/dir_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "checkpoint_test_util.h"

namespace tact {
namespace {

using DirLockTest = testing::CheckpointDirTest;

TEST_F(DirLockTest, ASecondLockIsRefusedNamingTheDirectoryAndTheProcessUntilTheFirstEnds) {
  {
    auto first = CheckpointDirLock::Acquire(dir());
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_TRUE(first->held());
    auto second = CheckpointDirLock::Acquire(dir());
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Code::kFailedPrecondition) << second.status().ToString();
    EXPECT_NE(second.status().message().find(dir()), std::string::npos) << second.status().ToString();
    EXPECT_NE(second.status().message().find("is in use by another run"), std::string::npos)
        << second.status().ToString();
    EXPECT_NE(second.status().message().find("(process " + std::to_string(getpid()) + ")"),
              std::string::npos)
        << second.status().ToString();
    CheckpointDirLock moved = std::move(*first);  // the lock travels with the object
    EXPECT_FALSE(CheckpointDirLock::Acquire(dir()).ok());
  }
  auto again = CheckpointDirLock::Acquire(dir());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  // No file is left in the directory: a directory of checkpoints stays as it was.
  EXPECT_TRUE(std::filesystem::is_empty(dir()));
}

TEST_F(DirLockTest, AnotherProcesssLockIsRefusedAndFreedWhenItIsKilled) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = CheckpointDirLock::Acquire(dir());
    const char c = lock.ok() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();  // holds the lock until killed
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  auto refused = CheckpointDirLock::Acquire(dir());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("(process " + std::to_string(child) + ")"), std::string::npos)
      << refused.status().ToString();
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  close(ready[0]);
  close(ready[1]);
  auto after = CheckpointDirLock::Acquire(dir());
  EXPECT_TRUE(after.ok()) << after.status().ToString();
}

TEST_F(DirLockTest, AMissingDirectoryIsNamed) {
  auto lock = CheckpointDirLock::Acquire(dir() + "/absent");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), Code::kInvalidArgument) << lock.status().ToString();
  EXPECT_NE(lock.status().message().find(dir() + "/absent"), std::string::npos) << lock.status().ToString();
}

}  // namespace
}  // namespace tact
