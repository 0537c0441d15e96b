// `tact export`: a model that `tact train` trained, from its checkpoint
// directory, as one GraphDef file for inference (TensorFlow's
// freeze_graph): the variables become constants, so the file needs
// neither the checkpoint nor a cluster, and `tact run` (or a Session of
// any program) runs it:
//
//   tact train --model mlp --checkpoint-dir ck
//   tact export --model mlp --checkpoint-dir ck --out mlp.capnp
//   tact run --graph mlp.capnp --feed pixels:0=images.npy --fetch classes:0 --out results/
//
// Its inputs and outputs are apps/train/inference_graph.h's. The newest
// good checkpoint is exported unless --step names one. The file is binary
// Cap'n Proto unless --text. Errors (no checkpoint, a checkpoint of another
// model, a file that cannot be written) name what is wrong and exit 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "apps/cli/commands.h"
#include "apps/cli/exit_status.h"
#include "apps/cli/graph_file.h"
#include "apps/cli/integer_flags.h"
#include "apps/train/inference_graph.h"
#include "checkpoint/freeze_checkpoint.h"
#include "graph/nn/models.h"

namespace tact::apps {
namespace {

struct ExportFlags {
  std::string model = "mlp";
  std::string checkpoint_dir;
  int64_t step = -1;  // -1: the newest good one
  std::string out;
  bool text = false;
  bool json = false;
};

Status Export(const ExportFlags& f) {
  TACT_ASSIGN_OR_RETURN(GraphDef model, BuildInferenceGraph(f.model));
  // Only the model's own variables are read: a training checkpoint also
  // holds the optimizer's slots and the global step.
  const std::vector<std::string> outputs(std::begin(kInferenceOutputs), std::end(kInferenceOutputs));
  StatusOr<FrozenGraph> frozen = FreezeFromCheckpoint(model, outputs, f.checkpoint_dir, f.step);
  if (!frozen.ok()) return frozen.status().WithPrefix("the " + f.model + " model: ");
  TACT_RETURN_IF_ERROR(WriteGraphFile(f.out, frozen->graph, !f.text));
  if (f.json) {
    const nlohmann::ordered_json j = {{"model", f.model},
                                      {"checkpoint_dir", f.checkpoint_dir},
                                      {"step", frozen->step},
                                      {"variables", frozen->variables},
                                      {"parameters", frozen->parameters},
                                      {"nodes", frozen->graph.nodes.size()},
                                      {"out", f.out}};
    std::printf("%s\n", j.dump().c_str());
    return Status::OK();
  }
  std::printf(
      "%s from checkpoint %lld of '%s': %lld variables (%lld parameters) as constants, %zu nodes -> %s\n"
      "  feed pixels:0 (uint8 [N,28,28]) or images:0 (float [N,28,28,1], pixels / 255)\n"
      "  fetch logits:0, probabilities:0 (float [N,10]) or classes:0 (int32 [N])\n",
      f.model.c_str(), static_cast<long long>(frozen->step), f.checkpoint_dir.c_str(),
      static_cast<long long>(frozen->variables), static_cast<long long>(frozen->parameters),
      frozen->graph.nodes.size(), f.out.c_str());
  return Status::OK();
}

}  // namespace

void AddExportCommand(CLI::App& app, std::function<int()>& run) {
  auto f = std::make_shared<ExportFlags>();
  CLI::App* cmd = app.add_subcommand("export", "write a trained model as one GraphDef file for inference");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--checkpoint-dir", f->checkpoint_dir, "the training run's checkpoint directory")
      ->required();
  cmd->add_option("--step", f->step, "the checkpoint's step (default: the newest good one)")
      ->check(NonNegativeInteger());
  cmd->add_option("--out", f->out, "where to write the GraphDef")->required();
  cmd->add_flag("--text", f->text, "write the Cap'n Proto text form rather than binary");
  cmd->add_flag("--json", f->json, "print one JSON line");
  cmd->callback([f, &run] { run = ExitStatusOf("export", [f] { return Export(*f); }); });
}

}  // namespace tact::apps
