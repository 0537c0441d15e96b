// `tact graph --model {mlp,cnn} [--train] --devices N [--dot out.dot] [--json]`:
// the model's graph placed and partitioned over N CPU devices by the
// master's pipeline (placement/plan.h), drawn as GraphViz DOT (graph_dot.h), with the placement
// summary. Forward only, the Run is an evaluation (fetch the loss and the
// number of right predictions); with --train it is a training step (fetch
// the loss, target Adam's update).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "apps/cli/commands.h"
#include "apps/cli/graph_dot.h"
#include "apps/train/train_graph.h"
#include "graph/nn/models.h"
#include "placement/plan.h"

namespace tact::apps {
namespace {

struct GraphOptions {
  std::string model = "mlp";
  bool train = false;
  int devices = 2;
  std::string dot;  // empty: no file
  bool json = false;
};

struct GraphPlan {
  std::vector<std::string> devices;
  RunPlan run;
};

StatusOr<GraphPlan> PlanModelGraph(const GraphOptions& o) {
  TrainOptions train;
  train.model.name = o.model;
  TACT_ASSIGN_OR_RETURN(TrainGraph tg, BuildTrainGraph(train));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> full, Graph::FromGraphDef(tg.def));
  GraphPlan plan;
  PlanOptions options;
  for (int d = 0; d < o.devices; ++d) {
    options.devices.push_back("/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(d));
  }
  SubgraphSpec spec;
  spec.feeds = {tg.images, tg.labels, tg.training};
  spec.fetches = {tg.loss};
  if (o.train) {
    spec.targets = {tg.train_op};
  } else {
    spec.fetches.push_back(tg.correct);
  }
  TACT_ASSIGN_OR_RETURN(plan.run, PlanRun(*full, spec, options));
  plan.devices = options.devices;
  return plan;
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return errors::InvalidArgument("cannot write --dot file '", path, "'");
  f << text;
  f.close();
  if (!f) return errors::Internal("writing --dot file '", path, "' failed");
  return Status::OK();
}

int RunGraph(const GraphOptions& o) {
  auto fail = [](const std::string& msg) {
    std::fprintf(stderr, "tact graph: %s\n", msg.c_str());
    return 1;
  };
  // Checked here, not by CLI11, whose validation errors exit 105.
  const std::vector<std::string>& models = ModelNames();
  if (std::find(models.begin(), models.end(), o.model) == models.end()) {
    return fail("unknown --model '" + o.model + "' (" + ModelNamesText() + ")");
  }
  // Placing on 100,000 devices ran out of memory; `tact bench place` stops at 4096 too.
  if (o.devices < 1 || o.devices > 4096) {
    return fail("--devices must be from 1 to 4096, not " + std::to_string(o.devices));
  }
  StatusOr<GraphPlan> plan = PlanModelGraph(o);
  if (!plan.ok()) return fail(plan.status().ToString());
  if (!o.dot.empty()) {
    Status s = WriteFile(o.dot, PartitionsToDot(plan->run.partitions, plan->devices));
    if (!s.ok()) return fail(s.ToString());
  }
  const PlacementReport& r = plan->run.placement;
  const PartitionResult& p = plan->run.partitions;
  nlohmann::ordered_json per_device = nlohmann::ordered_json::object();
  for (const std::string& d : plan->devices) per_device[d] = r.nodes_per_device.at(d);
  const nlohmann::ordered_json line = {{"model", o.model},
                                       {"train", o.train},
                                       {"devices", o.devices},
                                       {"nodes", plan->run.nodes},
                                       {"edges", plan->run.edges},
                                       {"cse_removed", plan->run.cse_removed},
                                       {"nodes_per_device", per_device},
                                       {"bytes_across_devices", r.bytes_across_devices},
                                       {"send_recv_pairs", p.send_recv_pairs},
                                       {"control_pairs", p.control_pairs},
                                       {"duplicated_consts", p.duplicated_consts},
                                       {"makespan_s", r.makespan_seconds},
                                       {"dot", o.dot.empty() ? nlohmann::ordered_json()
                                                             : nlohmann::ordered_json(o.dot)}};
  if (o.json) {
    std::printf("%s\n", line.dump().c_str());
    return 0;
  }
  std::printf("%s %s graph: %d nodes, %d edges after pruning and CSE (%d merged), on %d CPU "
              "devices\n",
              o.model.c_str(), o.train ? "training" : "evaluation", plan->run.nodes, plan->run.edges,
              plan->run.cse_removed, o.devices);
  for (const std::string& d : plan->devices) {
    std::printf("  %s: %d nodes\n", d.c_str(), r.nodes_per_device.at(d));
  }
  std::printf("bytes crossing devices: %lld\n", static_cast<long long>(r.bytes_across_devices));
  std::printf("send/recv pairs: %d (%d for control edges); small Consts copied instead: %d\n",
              p.send_recv_pairs, p.control_pairs, p.duplicated_consts);
  std::printf("simulated makespan: %.6f s\n", r.makespan_seconds);
  if (!o.dot.empty()) std::printf("wrote %s\n", o.dot.c_str());
  return 0;
}

}  // namespace

void AddGraphCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<GraphOptions>();
  CLI::App* cmd = app.add_subcommand(
      "graph", "place and partition a model's graph on CPU devices; write GraphViz DOT");
  cmd->add_option("--model", o->model, ModelNamesText());
  cmd->add_flag("--train", o->train, "the training step (gradients, Adam), not evaluation");
  cmd->add_option("--devices", o->devices, "CPU devices to place on");
  cmd->add_option("--dot", o->dot, "write the partitioned graph here as GraphViz DOT");
  cmd->add_flag("--json", o->json, "print only one JSON line");
  cmd->callback([o, &run] { run = [o] { return RunGraph(*o); }; });
}

}  // namespace tact::apps
