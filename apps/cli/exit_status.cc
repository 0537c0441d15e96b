#include "apps/cli/exit_status.h"

#include <cstdio>

namespace tact::apps {

std::function<int()> ExitStatusOf(std::string command, std::function<Status()> work) {
  return [command = std::move(command), work = std::move(work)] {
    const Status s = work();
    if (s.ok()) return 0;
    std::fprintf(stderr, "tact %s: %s\n", command.c_str(), s.ToString().c_str());
    return 1;
  };
}

}  // namespace tact::apps
