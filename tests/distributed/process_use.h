// What a process holds, from /proc: for tests that a worker keeps nothing
// of what came and went.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace tact::test_util {

struct ProcessUse {
  int64_t fds = 0, threads = 0, rss_kib = 0;
};

inline ProcessUse UseOf(pid_t pid) {
  ProcessUse u;
  const std::string proc = "/proc/" + std::to_string(pid);
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(proc + "/fd")) ++u.fds;
  std::ifstream status(proc + "/status");
  std::string key;
  while (status >> key) {
    if (key == "Threads:") status >> u.threads;
    if (key == "VmRSS:") status >> u.rss_kib;
  }
  return u;
}

}  // namespace tact::test_util
