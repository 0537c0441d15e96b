// LocalCluster::BringBack, called as a session's supervisor calls it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/cluster/local_cluster.h"

namespace tact {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// On a loaded machine a new process can take longer to start than the
// time after which a running one is taken for hung. Such a process must
// be left to start: before, the supervisor's next call (every 25 ms)
// killed it as hung and started another, which met the same end, and the
// task never came back (seen beside four busy loops, with a `tact` that
// took 4 s to start). Here every process takes over a second to start,
// and is taken for hung after 200 ms.
TEST(LocalClusterRestartTest, ASlowStartIsNotTakenForAHang) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("slow_start_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path slow = dir / "slow_tact";
  std::ofstream(slow) << "#!/bin/sh\nsleep 1.2\nexec '" << TACT_BINARY << "' \"$@\"\n";
  fs::permissions(slow, fs::perms::owner_all);
  {
    apps::LocalClusterOptions o;
    o.binary = slow.string();
    o.jobs = {{"worker", 1}};
    auto cluster = apps::LocalCluster::Start(o);
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    const std::string task = "/job:worker/replica:0/task:0";
    const auto hung_after = std::chrono::milliseconds(200);
    ASSERT_EQ(Count((*cluster)->Log(task), " listening on port "), 1);
    ASSERT_TRUE((*cluster)->Signal(task, SIGSTOP).ok());
    const pid_t hung = (*cluster)->Pid(task);
    std::this_thread::sleep_for(hung_after + std::chrono::milliseconds(50));  // listening that long
    ASSERT_FALSE((*cluster)->BringBack(task, std::chrono::milliseconds(100), hung_after));
    ASSERT_TRUE((*cluster)->BringBack(task, std::chrono::milliseconds(300), hung_after));
    const pid_t started = (*cluster)->Pid(task);
    EXPECT_NE(started, hung);
    // As the supervisor asks until the task is attached: the time since
    // the new process started. Never again while it starts or listens.
    const auto since = Clock::now();
    int restarts = 0;
    while (Clock::now() - since < std::chrono::seconds(20) &&
           Count((*cluster)->Log(task), " listening on port ") < 2) {
      const auto lost_for = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
      restarts += (*cluster)->BringBack(task, lost_for, hung_after) ? 1 : 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    EXPECT_EQ(restarts, 0);
    EXPECT_EQ((*cluster)->Pid(task), started);
    ASSERT_EQ(Count((*cluster)->Log(task), " listening on port "), 2) << (*cluster)->Log(task);
    // Listening, it has `hung_after` to be attached; after that, still
    // lost, it is hung after all.
    const auto lost_for = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
    };
    EXPECT_FALSE((*cluster)->BringBack(task, lost_for(), hung_after));
    std::this_thread::sleep_for(hung_after + std::chrono::milliseconds(50));
    EXPECT_TRUE((*cluster)->BringBack(task, lost_for(), hung_after));
    EXPECT_NE((*cluster)->Pid(task), started);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tact
