// `tact bench profile --model cnn [--batch B] [--steps N] [--threads T]
// [--gpus G] [--json]`: where a training step's time goes, by op type.
//
// It builds the graph `tact train` trains (the model, its loss, gradients
// and optimizer), feeds random images and labels (timing does not depend
// on the values), and runs `steps` steps with step statistics after a few
// unmeasured ones. Each node's time is its kernel's, from the executor's
// clock reads around it (actors/step_stats.h). Ops running side by side on
// the device's threads both count, so the ops' times can add up to more
// than the step; `share` is of that sum. With more than one thread an op's
// time also holds its waits for pool threads busy with another op's blocks
// (a BiasAddGrad beside a convolution's backprop): --threads 1 gives each
// kernel's own efficiency. For the ops the static cost model
// counts FLOPs of (MatMul, Conv2D and its backprops) the line also gives
// GFLOP/s inside the op. One JSON line: the step's wall time and the op
// types, costliest first.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/train/train_graph.h"
#include "graph/nn/models.h"
#include "graph/shape_refiner.h"
#include "placement/cost_model.h"

namespace tact::apps {
namespace {

struct ProfileFlags {
  std::string model = "cnn";
  int64_t batch = 100;
  int steps = 30;
  int threads = 2;
  int gpus = 0;
  bool json = false;
};

struct OpTotal {
  int64_t nodes = 0;  // node runs over all measured steps
  double seconds = 0;
  double flops = 0;
};

// By node name: its op, and its FLOPs for a batch of `batch`.
StatusOr<std::map<std::string, std::pair<std::string, double>>> NodeOps(const GraphDef& def, int64_t batch) {
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(def));
  TACT_RETURN_IF_ERROR(InferShapes(graph.get()));
  StaticCostOptions count;
  count.unknown_dim = batch;  // the batch is the graph's one unknown dimension
  std::map<std::string, std::pair<std::string, double>> ops;
  for (const Node* n : graph->nodes()) ops[n->name()] = {n->op(), EstimatedFlops(*n, count)};
  return ops;
}

Tensor RandomImages(int64_t batch, std::mt19937& gen) {
  Tensor t(DT_FLOAT, {batch, 28, 28, 1});
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

StatusOr<Tensor> RandomLabels(const GraphDef& def, const std::string& name, int64_t batch,
                              std::mt19937& gen) {
  const std::string node = name.substr(0, name.find(':'));
  DataType dtype = DT_INVALID;
  for (const NodeDef& n : def.nodes) {
    if (n.name == node) TACT_RETURN_IF_ERROR(GetAttr(n.attrs, "dtype", &dtype));
  }
  if (dtype != DT_INT32 && dtype != DT_INT64) {
    return errors::Internal("labels placeholder '", node, "' is ", DataTypeString(dtype));
  }
  Tensor t(dtype, {batch});
  std::uniform_int_distribution<int> dist(0, 9);
  for (int64_t i = 0; i < batch; ++i) {
    if (dtype == DT_INT32) {
      t.data<int32_t>()[i] = dist(gen);
    } else {
      t.data<int64_t>()[i] = dist(gen);
    }
  }
  return t;
}

int RunProfile(const ProfileFlags& f) {
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "tact bench profile: %s\n", s.ToString().c_str());
    return 1;
  };
  TrainOptions opt;
  opt.model.name = f.model;
  StatusOr<TrainGraph> g = BuildTrainGraph(opt);
  if (!g.ok()) return fail(g.status());
  auto ops = NodeOps(g->def, f.batch);
  if (!ops.ok()) return fail(ops.status());
  SessionOptions so;
  so.intra_op_threads = f.threads;
  if (f.gpus > 0) so.device_count["GPU"] = f.gpus;
  auto session = Session::Create(so);
  if (!session.ok()) return fail(session.status());
  Status s = (*session)->Extend(g->def);
  if (s.ok()) s = (*session)->Run({}, {}, {g->init_op}).status();
  if (!s.ok()) return fail(s);
  std::mt19937 gen(1);
  auto labels = RandomLabels(g->def, g->labels, f.batch, gen);
  if (!labels.ok()) return fail(labels.status());
  const std::vector<std::pair<std::string, Tensor>> feeds = {{g->images, RandomImages(f.batch, gen)},
                                                             {g->labels, *labels},
                                                             {g->training, Tensor::Scalar<bool>(true)}};
  constexpr int kWarmUp = 5;
  std::map<std::string, OpTotal> by_op;
  std::vector<double> step_seconds;
  for (int i = 0; i < kWarmUp + f.steps; ++i) {
    RunMetadata md;
    const auto start = std::chrono::steady_clock::now();
    auto out = (*session)->Run(feeds, {g->loss}, {g->train_op}, i < kWarmUp ? nullptr : &md);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!out.ok()) return fail(out.status());
    if (i < kWarmUp) continue;
    step_seconds.push_back(seconds);
    for (const NodeExecStats& n : md.step_stats.nodes()) {
      auto it = ops->find(n.node_name);
      // Nodes the runtime added (the partitions' _Send and _Recv, feeds and
      // fetches) are not in the graph.
      const std::string op = it == ops->end() ? "(runtime: send, recv, feed, fetch)" : it->second.first;
      OpTotal& t = by_op[op];
      ++t.nodes;
      t.seconds += static_cast<double>(n.end_ns - n.start_ns) / 1e9;
      if (it != ops->end()) t.flops += it->second.second;
    }
  }
  std::vector<std::pair<std::string, OpTotal>> sorted(by_op.begin(), by_op.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  double total = 0;
  for (const auto& [op, t] : sorted) total += t.seconds;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [op, t] : sorted) {
    nlohmann::ordered_json e = {{"op", op},
                                {"nodes_per_step", static_cast<double>(t.nodes) / f.steps},
                                {"ms_per_step", t.seconds * 1e3 / f.steps},
                                {"share", total > 0 ? t.seconds / total : 0}};
    if (t.flops > 0 && t.seconds > 0) e["gflops"] = t.flops / t.seconds / 1e9;
    list.push_back(e);
  }
  const double step_ms = Median(step_seconds) * 1e3;
  const nlohmann::ordered_json line = {{"model", f.model},
                                       {"batch", f.batch},
                                       {"steps", f.steps},
                                       {"threads", f.threads},
                                       {"gpus", f.gpus},
                                       {"step_ms", step_ms},
                                       {"ops_ms_per_step", total * 1e3 / f.steps},
                                       {"ops", list}};
  if (!f.json) {
    std::printf("%s, batch %lld, %d threads%s: step %.2f ms (median of %d); op time %.2f ms per step\n",
                f.model.c_str(), static_cast<long long>(f.batch), f.threads, f.gpus > 0 ? ", GPU" : "",
                step_ms, f.steps, total * 1e3 / f.steps);
    for (const auto& e : list) {
      std::printf("  %-34s %6.2f ms  %5.1f%%  %5.1f nodes", e["op"].get<std::string>().c_str(),
                  e["ms_per_step"].get<double>(), 100 * e["share"].get<double>(),
                  e["nodes_per_step"].get<double>());
      if (e.contains("gflops")) std::printf("  %6.1f GFLOP/s", e["gflops"].get<double>());
      std::printf("\n");
    }
  }
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchProfile(CLI::App& bench, std::function<int()>& run) {
  auto f = std::make_shared<ProfileFlags>();
  CLI::App* cmd = bench.add_subcommand("profile", "where a training step's time goes, by op type");
  cmd->add_option("--model", f->model, ModelNamesText())->check(CLI::IsMember(ModelNames()));
  cmd->add_option("--batch", f->batch, "images per step")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--steps", f->steps, "measured steps")->check(CLI::Range(1, 100000));
  cmd->add_option("--threads", f->threads, "threads of the device's pools")->check(CLI::Range(1, 1024));
  cmd->add_option("--gpus", f->gpus, "GPU devices beside the CPU")->check(CLI::Range(0, 64));
  cmd->add_flag("--json", f->json, "print only the JSON line");
  cmd->callback([f, &run] { run = [f] { return RunProfile(*f); }; });
}

}  // namespace tact::apps
