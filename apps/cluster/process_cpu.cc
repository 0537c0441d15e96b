#include "apps/cluster/process_cpu.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tact::apps {
namespace {

// Parent pid and utime + stime in ticks from /proc/<pid>/stat, or false.
// The command name (field 2) may hold spaces: read after its last ')'.
bool ReadStat(const std::string& pid, long* ppid, long long* ticks) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(f, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  std::string state;
  long long skip = 0, utime = 0, stime = 0;
  rest >> state >> *ppid;
  for (int field = 5; field <= 13; ++field) rest >> skip;  // pgrp .. cmajflt
  rest >> utime >> stime;
  *ticks = utime + stime;
  return static_cast<bool>(rest);
}

}  // namespace

double ProcessTreeCpuSeconds() {
  const long self = getpid();
  long long total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    long ppid = 0;
    long long ticks = 0;
    if (!ReadStat(name, &ppid, &ticks)) continue;  // gone meanwhile
    if (std::stol(name) == self || ppid == self) total += ticks;
  }
  return static_cast<double>(total) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace tact::apps
