// The `tact` command. Each subcommand lives in its own file and registers
// itself here through apps/cli/commands.h.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "apps/cli/commands.h"
#include "apps/cli/integer_flags.h"
#include "graph/logging.h"

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
    return app.exit(e);
  }
  if (!log_level.empty()) {
    tact::Status s = tact::SetLogLevel(log_level);
    if (!s.ok()) {
      std::fprintf(stderr, "tact: --log-level: %s\n", s.message().c_str());
      return 2;
    }
  }
  return run ? run() : 0;
}
