// `tact bench place --runtime`: the greedy placer judged by real steps, not
// by its own simulation (paper 3.2.1). The mlp's and the cnn's training
// steps and a wide graph run in a Session of 2 and 4 CPU devices, placed
// four ways: greedily from the static estimates, greedily again after two
// measured steps (SessionOptions::placement_measure_steps), all on one
// device, and round-robin over colocation groups. Each way runs for several
// steps, in rounds that alternate them so that the machine's load falls on
// all of them alike.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <random>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/train/train_graph.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

// A graph to place and the Run that is one step of it.
struct Workload {
  std::string name;
  GraphDef def;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches, targets;
  std::string init_op;  // run once before the steps; may be empty
};

StatusOr<Workload> TrainingStep(const std::string& model) {
  TrainOptions opt;
  opt.model.name = model;
  TACT_ASSIGN_OR_RETURN(TrainGraph g, BuildTrainGraph(opt));
  const int64_t batch = opt.data.batch;
  Workload w;
  w.name = model;
  w.def = std::move(g.def);
  w.feeds = {{g.images, Tensor(DT_FLOAT, {batch, 28, 28, 1})},
             {g.labels, Tensor(DT_INT32, {batch})},
             {g.training, Tensor::Scalar<bool>(true)}};
  for (auto& [name, t] : w.feeds) std::memset(t.raw_data(), 0, t.TotalBytes());
  w.fetches = {g.loss};
  w.targets = {g.train_op};
  w.init_op = g.init_op;
  return w;
}

// Eight independent branches of four 256x256 MatMul+Tanh layers, summed:
// work that two or four devices can share, and that one device does alone.
StatusOr<Workload> WideGraph() {
  constexpr int kBranches = 8, kDepth = 4;
  constexpr int64_t kWidth = 256;
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DT_FLOAT, PartialTensorShape({kWidth, kWidth}));
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-0.06f, 0.06f);
  std::vector<Output> tops;
  for (int b = 0; b < kBranches; ++b) {
    Output h = x;
    for (int d = 0; d < kDepth; ++d) {
      Tensor w(DT_FLOAT, {kWidth, kWidth});
      for (int64_t i = 0; i < w.NumElements(); ++i) w.data<float>()[i] = dist(gen);
      h = Tanh(s, MatMul(s, h, Const(s, w)));
    }
    tops.push_back(h);
  }
  AddN(s.WithOpName("sum"), std::vector<Input>(tops.begin(), tops.end()));
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  Workload w;
  w.name = "wide";
  w.def = std::move(def);
  Tensor in(DT_FLOAT, {kWidth, kWidth});
  for (int64_t i = 0; i < in.NumElements(); ++i) in.data<float>()[i] = dist(gen);
  w.feeds = {{"x:0", in}};
  w.fetches = {"sum:0"};
  return w;
}

struct Way {
  const char* name;
  PlacementStrategy strategy;
  int64_t measure_steps;
};
constexpr Way kWays[] = {{"greedy", PlacementStrategy::kGreedy, 0},
                         {"greedy_measured", PlacementStrategy::kGreedy, 2},
                         {"one_device", PlacementStrategy::kOneDevice, 0},
                         {"round_robin", PlacementStrategy::kRoundRobin, 0}};

StatusOr<std::unique_ptr<Session>> StartSession(const Workload& w, int devices, const Way& way) {
  SessionOptions o;
  o.device_count = {{"CPU", devices}};
  o.intra_op_threads = 1;  // a device is one thread: what placement spreads is the work
  o.placement_strategy = way.strategy;
  o.placement_measure_steps = way.measure_steps;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(o));
  TACT_RETURN_IF_ERROR(session->Extend(w.def));
  if (!w.init_op.empty()) TACT_RETURN_IF_ERROR(session->Run({}, {}, {w.init_op}).status());
  return session;
}

}  // namespace

StatusOr<std::vector<PlaceRuntimeCase>> BenchPlaceRuntime(const std::vector<int>& device_counts,
                                                          int steps, int rounds) {
  std::vector<Workload> workloads;
  for (const char* model : {"mlp", "cnn"}) {
    TACT_ASSIGN_OR_RETURN(Workload w, TrainingStep(model));
    workloads.push_back(std::move(w));
  }
  TACT_ASSIGN_OR_RETURN(Workload wide, WideGraph());
  workloads.push_back(std::move(wide));
  std::vector<PlaceRuntimeCase> cases;
  for (const Workload& w : workloads) {
    for (int devices : device_counts) {
      std::vector<std::unique_ptr<Session>> sessions;
      std::vector<std::map<std::string, std::string>> plans;  // by way: node -> device
      for (const Way& way : kWays) {
        TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, StartSession(w, devices, way));
        // Three steps place, register and warm the allocators (and, with
        // measuring, place again after the second); a fourth tells where
        // each node ran.
        for (int i = 0; i < 3; ++i) {
          TACT_RETURN_IF_ERROR(session->Run(w.feeds, w.fetches, w.targets).status());
        }
        RunMetadata metadata;
        TACT_RETURN_IF_ERROR(session->Run(w.feeds, w.fetches, w.targets, &metadata).status());
        std::map<std::string, std::string> plan;
        for (const NodeExecStats& n : metadata.step_stats.nodes()) plan[n.node_name] = n.device;
        plans.push_back(std::move(plan));
        sessions.push_back(std::move(session));
      }
      std::vector<std::vector<double>> ms(sessions.size());
      for (int r = 0; r < rounds; ++r) {
        for (size_t k = 0; k < sessions.size(); ++k) {
          for (int i = 0; i < steps; ++i) {
            const auto start = std::chrono::steady_clock::now();
            TACT_RETURN_IF_ERROR(sessions[k]->Run(w.feeds, w.fetches, w.targets).status());
            ms[k].push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
          }
        }
      }
      PlaceRuntimeCase c;
      c.graph = w.name;
      c.devices = devices;
      for (size_t k = 0; k < sessions.size(); ++k) {
        c.step_ms[kWays[k].name] = Median(ms[k]);
        c.plan[kWays[k].name] = static_cast<int>(
            std::find(plans.begin(), plans.end(), plans[k]) - plans.begin());
        TACT_RETURN_IF_ERROR(sessions[k]->Close());
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace tact::apps
