#include "apps/cluster/process_cpu.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace tact::apps {
namespace {

void Spin(std::chrono::milliseconds how_long) {
  const auto end = std::chrono::steady_clock::now() + how_long;
  volatile unsigned long x = 0;
  while (std::chrono::steady_clock::now() < end) x = x + 1;
}

// A child that spins counts while it runs, as a local cluster's task does.
TEST(ProcessCpuTest, CountsThisProcessAndARunningChild) {
  const double start = ProcessTreeCpuSeconds();
  Spin(std::chrono::milliseconds(300));
  const double after_self = ProcessTreeCpuSeconds();
  EXPECT_GE(after_self - start, 0.2);
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Spin(std::chrono::milliseconds(400));
    char c = 1;
    (void)!write(go[1], &c, 1);  // spun; now wait to be killed, still a child
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(go[0], &c, 1), 1);
  const double with_child = ProcessTreeCpuSeconds();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(go[0]);
  close(go[1]);
  // The child's 400 ms, while this process only waited on the pipe.
  EXPECT_GE(with_child - after_self, 0.25);
}

}  // namespace
}  // namespace tact::apps
