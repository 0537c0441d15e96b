// Where a local cluster keeps its spec and its tasks' logs: under $TMPDIR,
// gone with the cluster, and, when its owner was killed before its
// destructor ran, gone at the next cluster's start; a live owner's stays,
// and so does one kept on purpose. The tasks have process groups of their
// own, out of reach of a terminal's Ctrl-C to the trainer.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "tests/distributed/cluster_test_util.h"

namespace tact {
namespace {

namespace fs = std::filesystem;

// A directory as a cluster owned by `pid` leaves it.
fs::path FakeClusterDir(const fs::path& tmp, const std::string& name, pid_t pid) {
  const fs::path dir = tmp / ("tact_cluster_" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "owner") << pid;
  std::ofstream(dir / "worker_0.log") << "a task's log\n";
  return dir;
}

// The pid of a process that has exited and been reaped.
pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(LocalClusterDirTest, GoesUnderTmpdirAndTheDeadOwnersDirectoriesGoAtTheNextStart) {
  const fs::path tmp = fs::path(::testing::TempDir()) / ("tact_local_cluster_dir_" + std::to_string(getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const fs::path orphan = FakeClusterDir(tmp, "orphan", DeadPid());
  const fs::path alive = FakeClusterDir(tmp, "alive", getpid());
  const fs::path kept = tmp / "tact_cluster_kept";  // no owner file: kept on purpose
  fs::create_directories(kept);
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old == nullptr ? "" : old;
  setenv("TMPDIR", tmp.c_str(), 1);
  {
    auto cluster = test_util::StartCluster({{"worker", 1}});
    ASSERT_NE(cluster, nullptr);
    EXPECT_EQ(fs::path(cluster->dir()).parent_path(), tmp);
    EXPECT_FALSE(fs::exists(orphan));
    EXPECT_TRUE(fs::exists(alive));
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_TRUE(fs::exists(fs::path(cluster->dir()) / "owner"));
    // The task leads a process group of its own. Read from /proc (procps
    // may be missing), until the task shows there.
    int tasks = 0;
    for (int tries = 0; tasks == 0 && tries < 500; ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      for (const auto& e : fs::directory_iterator("/proc")) {
        std::ifstream cmdline(e.path() / "cmdline");
        const std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
        if (args.find(cluster->dir() + "/cluster.json") == std::string::npos) continue;
        std::ifstream stat(e.path() / "stat");
        std::string pid, comm, state;
        pid_t ppid = 0, pgid = 0;
        stat >> pid >> comm >> state >> ppid >> pgid;  // comm is "(tact)", with no space
        ++tasks;
        EXPECT_EQ(std::to_string(pgid), pid);
        EXPECT_NE(pgid, getpgrp());
      }
    }
    EXPECT_EQ(tasks, 1) << cluster->dir();
  }
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(kept));
  int left = 0;
  for (const auto& e : fs::directory_iterator(tmp)) {
    left += e.path().filename() != "tact_cluster_alive" && e.path().filename() != "tact_cluster_kept";
  }
  EXPECT_EQ(left, 0) << "the cluster's own directory stayed";
  if (old == nullptr) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", saved.c_str(), 1);
  }
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tact
