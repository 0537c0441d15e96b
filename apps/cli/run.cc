// `tact run`: one Session::Run of a GraphDef file, with feeds and fetches
// as NumPy .npy files.
//
//   tact run --graph g.capnp --feed x:0=x.npy --fetch relu:0 --out results/ [--trace step.json]
//
// The graph file may be a binary Cap'n Proto GraphDef or its text form.
// Every bad input (a missing or malformed file, a feed without '=', an
// error from the graph or a kernel) prints a message and exits 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "actors/session.h"
#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "apps/cli/graph_file.h"
#include "apps/train/chrome_trace.h"
#include "graph/npy.h"
#include "graph/subgraph.h"

namespace tact::apps {
namespace {

struct RunFlags {
  std::string graph;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::string out = ".";
  std::string trace;  // a Chrome trace file of the step, if named
};

Status RunGraph(const RunFlags& flags) {
  TACT_ASSIGN_OR_RETURN(GraphDef def, ReadGraphFile(flags.graph));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const std::string& f : flags.feeds) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == f.size()) {
      return errors::InvalidArgument("--feed '", f, "' must be name:port=file.npy");
    }
    TACT_ASSIGN_OR_RETURN(Tensor t, ReadNpyFile(f.substr(eq + 1)));
    feeds.emplace_back(f.substr(0, eq), std::move(t));
  }
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  RunMetadata meta;
  TACT_ASSIGN_OR_RETURN(std::vector<Tensor> out, session->Run(feeds, flags.fetches, flags.targets,
                                                              flags.trace.empty() ? nullptr : &meta));
  std::error_code ec;
  std::filesystem::create_directories(flags.out, ec);
  if (ec) return errors::PermissionDenied("cannot create --out '", flags.out, "': ", ec.message());
  for (size_t i = 0; i < out.size(); ++i) {
    TACT_ASSIGN_OR_RETURN(TensorId id, ParseTensorId(flags.fetches[i]));
    std::string name = id.node;
    for (char& c : name) {
      if (c == '/') c = '_';  // scoped names stay one file
    }
    const std::string path = flags.out + "/" + name + "_" + std::to_string(id.port) + ".npy";
    TACT_RETURN_IF_ERROR(WriteNpyFile(path, out[i]));
    std::printf("%s -> %s (%s)\n", flags.fetches[i].c_str(), path.c_str(),
                out[i].DebugString(4).c_str());
  }
  if (!flags.trace.empty()) {
    TACT_RETURN_IF_ERROR(WriteChromeTrace(flags.trace, meta.step_stats, def));
    std::printf("the step's node timeline -> %s (chrome://tracing or ui.perfetto.dev)\n", flags.trace.c_str());
  }
  return session->Close();
}

}  // namespace

void AddRunCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand("run", "run a GraphDef file once, with .npy feeds and fetches");
  cmd->add_option("--graph", flags->graph, "GraphDef file (binary or capnp text)")->required();
  cmd->add_option("--feed", flags->feeds, "name:port=file.npy (repeatable)");
  cmd->add_option("--fetch", flags->fetches, "name:port (repeatable)");
  cmd->add_option("--target", flags->targets, "node to run for its effect (repeatable)");
  cmd->add_option("--out", flags->out, "directory for the fetched .npy files");
  cmd->add_option("--trace", flags->trace, "write the step's node timeline to this Chrome trace file");
  cmd->callback([flags, &run] { run = ExitStatusOf("run", [flags] { return RunGraph(*flags); }); });
}

}  // namespace tact::apps
