// A save that fails in a child process (a full disk, a file size limit):
// what the child checks afterwards, and how the parent reads its verdict.
// A child, since the failure needs a mount or a limit of its own, and since
// HDF5 1.10 crashed at exit after a failed close: the exit is part of the
// test.
#pragma once

#include <H5public.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "checkpoint_test_util.h"

namespace tact::testing {

// The child's exit codes.
constexpr int kFailedSaveNotRefused = 41;
constexpr int kFailedSaveLeftFiles = 42;
constexpr int kNextSaveFailed = 43;
constexpr int kReadBackFailed = 44;
constexpr const char* kFailedSaveExitCodes =
    "41: the save was not refused as expected, 42: files left, 43: the next save failed, "
    "44: read back failed";

// In the child, after the refused save into `dir` (`refused`: whether it
// was refused as expected, printed if not): nothing may be left in `dir`, a
// small checkpoint then saves and reads back, and HDF5's own teardown
// passes. _exits with 0 or the code of what failed.
[[noreturn]] inline void ExitAfterFailedSave(const std::string& dir, const Status& save, bool refused) {
  if (!refused) {
    std::fprintf(stderr, "the failed save: %s\n", save.ToString().c_str());
    _exit(kFailedSaveNotRefused);
  }
  if (!std::filesystem::is_empty(dir)) _exit(kFailedSaveLeftFiles);
  const Tensor small = RandomTensor(DT_FLOAT, {64, 64}, 2);
  if (!Save(dir, 1, {{"small", small}}).ok()) _exit(kNextSaveFailed);
  auto read = ReadCheckpoint(dir, 1, {{"small", DT_FLOAT, small.shape()}});
  if (!read.ok() || !read->variables[0].second.BitwiseEqual(small)) _exit(kReadBackFailed);
  H5close();  // what crashed after a failed close
  _exit(0);
}

// Waits for the child; its exit status, or -1 (with a failure) if a signal
// ended it.
inline int ChildExitStatus(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  ADD_FAILURE() << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

}  // namespace tact::testing
