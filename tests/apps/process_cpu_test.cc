#include "apps/cluster/process_cpu.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace tact::apps {
namespace {

// This process's CPU time, from the kernel's own clock: the reference.
double OwnCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Spins until this process has used `seconds` more of CPU, however long
// that takes on a loaded machine (spinning for a wall time got 0.15 s of
// CPU out of 0.3 s beside two busy loops).
void Spin(double seconds) {
  const double end = OwnCpuSeconds() + seconds;
  volatile unsigned long x = 0;
  while (OwnCpuSeconds() < end) x = x + 1;
}

// A child that spins counts while it runs, as a local cluster's task does.
TEST(ProcessCpuTest, CountsThisProcessAndARunningChild) {
  const double start = ProcessTreeCpuSeconds();
  Spin(0.3);
  const double after_self = ProcessTreeCpuSeconds();
  // /proc counts in ticks of 10 ms; other processes' CPU is not counted.
  EXPECT_GE(after_self - start, 0.25);
  EXPECT_LE(after_self - start, 0.4);
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const double own_before_fork = OwnCpuSeconds();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Spin(0.4);
    // Its whole CPU time, the page faults after the fork included: more
    // than the spin (a fixed bound on the sum failed once under
    // AddressSanitizer on a loaded machine, 0.61 s for a 0.4 s spin).
    const double used = OwnCpuSeconds();
    (void)!write(go[1], &used, sizeof used);  // spun; now wait to be killed, still a child
    pause();
    _exit(0);
  }
  double child_cpu = 0;
  ASSERT_EQ(read(go[0], &child_cpu, sizeof child_cpu), static_cast<ssize_t>(sizeof child_cpu));
  const double with_child = ProcessTreeCpuSeconds();
  const double own = OwnCpuSeconds() - own_before_fork;  // fork() itself, mostly
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(go[0]);
  close(go[1]);
  // The child's time as its own clock tells it, while this process only
  // forked and waited on the pipe; within a few of /proc's 10 ms ticks.
  EXPECT_GE(child_cpu, 0.4);
  EXPECT_NEAR(with_child - after_self, child_cpu + own, 0.05);
}

}  // namespace
}  // namespace tact::apps
