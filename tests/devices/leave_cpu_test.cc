// LeaveCpu (devices/leave_cpu.h): the thread is on another CPU when the
// call returns, and its affinity mask is what it was.
#include "devices/leave_cpu.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <thread>
#include <vector>

namespace tact {
namespace {

cpu_set_t MaskOfThisThread() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
  return mask;
}

std::vector<int> CpusOf(const cpu_set_t& mask) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  return cpus;
}

TEST(LeaveCpuTest, TheThreadRunsElsewhereAndKeepsItsMask) {
  const cpu_set_t before = MaskOfThisThread();
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "this process may run on one CPU only";
  // Each CPU of the mask in turn, from a thread that starts on it.
  for (int cpu : CpusOf(before)) {
    std::thread([&] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
      ASSERT_EQ(sched_getcpu(), cpu);
      ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(before), &before), 0);
      if (sched_getcpu() != cpu) return;  // the scheduler moved it already
      LeaveCpu(cpu);
      EXPECT_NE(sched_getcpu(), cpu);
      const cpu_set_t after = MaskOfThisThread();
      EXPECT_TRUE(CPU_EQUAL(&after, &before)) << "CPU " << cpu;
    }).join();
  }
}

TEST(LeaveCpuTest, AThreadWithOneCpuStaysAndKeepsItsMask) {
  const std::vector<int> cpus = CpusOf(MaskOfThisThread());
  ASSERT_FALSE(cpus.empty());
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[0], &one);
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
    LeaveCpu(cpus[0]);
    EXPECT_EQ(sched_getcpu(), cpus[0]);
    const cpu_set_t after = MaskOfThisThread();
    EXPECT_TRUE(CPU_EQUAL(&after, &one));
    // CPUs it is not on, or that do not exist, change nothing either.
    LeaveCpu(-1);
    LeaveCpu(CPU_SETSIZE);
    EXPECT_EQ(sched_getcpu(), cpus[0]);
  }).join();
}

}  // namespace
}  // namespace tact
