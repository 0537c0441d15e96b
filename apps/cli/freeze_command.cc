// `tact freeze`: any GraphDef file and a checkpoint of its Variables as one
// GraphDef for inference (TensorFlow's freeze_graph): the nodes the
// outputs need, each Variable among them a Const of its value in the
// checkpoint (checkpoint/freeze_checkpoint.h).
//
//   tact freeze --graph train.txt --checkpoint-dir ck --output probabilities:0 --out frozen.capnp
//   tact run --graph frozen.capnp --feed x:0=x.npy --fetch probabilities:0
//
// `tact export` does the same for the models `tact train` trains. The newest
// good checkpoint is read unless --step names one; the file is binary
// Cap'n Proto unless --text. Errors name the file, the checkpoint, the
// node or the variable, and exit 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "apps/cli/graph_file.h"
#include "apps/cli/integer_flags.h"
#include "checkpoint/freeze_checkpoint.h"

namespace tact::apps {
namespace {

struct FreezeFlags {
  std::string graph, checkpoint_dir, out;
  std::vector<std::string> outputs;
  int64_t step = -1;  // -1: the newest good one
  bool text = false;
};

Status Freeze(const FreezeFlags& f) {
  TACT_ASSIGN_OR_RETURN(GraphDef graph, ReadGraphFile(f.graph));
  TACT_ASSIGN_OR_RETURN(FrozenGraph frozen, FreezeFromCheckpoint(graph, f.outputs, f.checkpoint_dir, f.step));
  TACT_RETURN_IF_ERROR(WriteGraphFile(f.out, frozen.graph, !f.text));
  std::printf("%s with checkpoint %lld of '%s': %lld variables (%lld parameters) as constants, %zu of %zu "
              "nodes -> %s\n",
              f.graph.c_str(), static_cast<long long>(frozen.step), f.checkpoint_dir.c_str(),
              static_cast<long long>(frozen.variables), static_cast<long long>(frozen.parameters),
              frozen.graph.nodes.size(), graph.nodes.size(), f.out.c_str());
  return Status::OK();
}

}  // namespace

void AddFreezeCommand(CLI::App& app, std::function<int()>& run) {
  auto f = std::make_shared<FreezeFlags>();
  CLI::App* cmd =
      app.add_subcommand("freeze", "a GraphDef file and a checkpoint as one GraphDef for inference");
  cmd->add_option("--graph", f->graph, "GraphDef file (binary or capnp text)")->required();
  cmd->add_option("--checkpoint-dir", f->checkpoint_dir, "the checkpoints of its variables")->required();
  cmd->add_option("--step", f->step, "the checkpoint's step (default: the newest good one)")
      ->check(NonNegativeInteger());
  cmd->add_option("--output", f->outputs, "the tensors to keep, name:port (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  cmd->add_option("--out", f->out, "where to write the frozen GraphDef")->required();
  cmd->add_flag("--text", f->text, "write the Cap'n Proto text form rather than binary");
  cmd->callback([f, &run] { run = ExitStatusOf("freeze", [f] { return Freeze(*f); }); });
}

}  // namespace tact::apps
