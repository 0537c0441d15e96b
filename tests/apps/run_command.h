// A shell command's exit status and output, for the tests that run the
// `tact` command as a user does.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace tact::test {

struct CommandResult {
  int status = -1;  // the exit status; -1 if it did not exit
  std::string out;  // what it printed on stdout (add 2>&1 for stderr too)
};

inline CommandResult RunCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int rc = pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

}  // namespace tact::test
