// The `tact` command. Each subcommand lives in its own file and registers
// itself here through apps/cli/commands.h.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "apps/cli/commands.h"
#include "apps/cli/integer_flags.h"
#include "graph/logging.h"

namespace {

// What a command prints is its result: a write that failed (stdout on a
// full disk) makes the exit status 1, as in the shell's own tools, rather
// than a success whose output is gone. (CLI11's help goes through
// std::cout, which writes through stdout.)
int WithOutputWritten(int status) {
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout)) return status;
  std::fprintf(stderr, "tact: cannot write its output: %s\n",
               flushed ? "a write failed" : std::strerror(error));
  return status == 0 ? 1 : status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tact: dataflow graphs of tensor operations on an actor runtime"};
  app.require_subcommand(1);
  // Every command takes --log-level (graph/logging.h).
  app.fallthrough();
  std::string log_level;
  app.add_option("--log-level", log_level, "debug, info, warning (the default), error or off");
  std::function<int()> run;
  tact::apps::AddExampleCommand(app, run);
  tact::apps::AddRunCommand(app, run);
  tact::apps::AddGradCommand(app, run);
  tact::apps::AddTrainCommand(app, run);
  tact::apps::AddExportCommand(app, run);
  tact::apps::AddFreezeCommand(app, run);
  tact::apps::AddGraphCommand(app, run);
  tact::apps::AddWorkerCommand(app, run);
  tact::apps::AddCkptCommand(app, run);
  tact::apps::AddBenchCommand(app, run);
  tact::apps::RefuseIntegersBeyond64Bits(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return WithOutputWritten(app.exit(e));
  }
  if (!log_level.empty()) {
    tact::Status s = tact::SetLogLevel(log_level);
    if (!s.ok()) {
      std::fprintf(stderr, "tact: --log-level: %s\n", s.message().c_str());
      return 2;
    }
  }
  return WithOutputWritten(run ? run() : 0);
}
