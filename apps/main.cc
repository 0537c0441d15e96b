// The `tact` command. Each subcommand lives in its own file and registers
// itself here through apps/commands.h.
#include <CLI/CLI.hpp>

#include "apps/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"tact: dataflow graphs of tensor operations on an actor runtime"};
  app.require_subcommand(1);
  std::function<int()> run;
  tact::apps::AddExampleCommand(app, run);
  tact::apps::AddRunCommand(app, run);
  tact::apps::AddTrainCommand(app, run);
  tact::apps::AddGraphCommand(app, run);
  tact::apps::AddWorkerCommand(app, run);
  tact::apps::AddCkptCommand(app, run);
  tact::apps::AddBenchCommand(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return run ? run() : 0;
}
