// `tact bench place --nodes N --devices D [--reps R] [--json]`: how long the
// placer takes on an Inception-sized training graph (paper 3.2.1 names
// Inception's 36,000 nodes), built as Inception is: blocks of four
// convolution branches concatenated, the loss, AddSymbolicGradients and a
// GradientDescent update per variable. Place() is timed whole: the static
// cost model, constraints and colocation, the greedy simulation and writing
// the assignment. Then Partition() (default options) of that placement is
// timed whole: one GraphDef per device with the Send/Recv pairs. The issue's
// goal is both together under 100 ms for 36,000 nodes on 8 devices.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "apps/bench/bench.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/all_ops.h"
#include "placement/partitioner.h"
#include "placement/placer.h"

namespace tact::apps {
namespace {

constexpr int64_t kBatch = 32, kSize = 8, kChannels = 32;

// conv (k x k, SAME) + bias + ReLU, with its two variables.
Output ConvLayer(const Scope& s, Output x, int64_t k, int64_t in, int64_t out,
                 std::vector<Output>* vars) {
  auto w = Variable(s.WithOpName("kernel"), PartialTensorShape({k, k, in, out}));
  auto b = Variable(s.WithOpName("bias"), PartialTensorShape({out}));
  vars->push_back(w);
  vars->push_back(b);
  return Relu(s, BiasAdd(s, Conv2D(s, x, w, {1, 1, 1, 1}, "SAME"), b));
}

// An Inception block: 1x1 | 1x1-3x3 | 1x1-3x3-3x3 | avgpool-1x1, concatenated
// on channels. [B, H, W, C] in and out.
Output Block(const Scope& s, Output x, std::vector<Output>* vars) {
  const int64_t c = kChannels, q = kChannels / 4;
  Output b1 = ConvLayer(s.NewSubScope("b1x1"), x, 1, c, q, vars);
  Output b2 = ConvLayer(s.NewSubScope("b3x3_reduce"), x, 1, c, q, vars);
  b2 = ConvLayer(s.NewSubScope("b3x3"), b2, 3, q, q, vars);
  Output b3 = ConvLayer(s.NewSubScope("b5x5_reduce"), x, 1, c, q, vars);
  b3 = ConvLayer(s.NewSubScope("b5x5_a"), b3, 3, q, q, vars);
  b3 = ConvLayer(s.NewSubScope("b5x5_b"), b3, 3, q, q, vars);
  Output b4 = AvgPool(s, x, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME");
  b4 = ConvLayer(s.NewSubScope("pool_proj"), b4, 1, c, q, vars);
  return Concat(s, {b1, b2, b3, b4}, 3);
}

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// This thread's CPU time: on a shared machine, wall time also counts the
// time other processes held the core.
int64_t CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace

Status BuildInceptionLikeTrainingGraph(const Scope& s, int blocks) {
  auto images = Placeholder(s.WithOpName("images"), DT_FLOAT,
                            PartialTensorShape({kBatch, kSize, kSize, kChannels}));
  auto labels = Placeholder(s.WithOpName("labels"), DT_INT32, PartialTensorShape({kBatch}));
  std::vector<Output> vars;
  Output x = images;
  for (int i = 0; i < blocks; ++i) x = Block(s.NewSubScope("mixed_" + std::to_string(i)), x, &vars);
  Scope head = s.NewSubScope("logits");
  auto w = Variable(head.WithOpName("kernel"), PartialTensorShape({kChannels, 10}));
  vars.push_back(w);
  auto logits = MatMul(head, Mean(head, x, {1, 2}), w);
  auto xent = SparseSoftmaxCrossEntropyWithLogits(s, logits, labels);
  auto loss = Mean(s.WithOpName("loss"), xent[0], 0);
  TACT_RETURN_IF_ERROR(s.status());
  std::vector<Output> grads;
  TACT_RETURN_IF_ERROR(AddSymbolicGradients(s.NewSubScope("gradients"), {loss}, vars, {}, &grads));
  Scope update = s.NewSubScope("GradientDescent");
  for (size_t i = 0; i < vars.size(); ++i) ApplyGradientDescent(update, vars[i], 0.01f, grads[i]);
  return s.status();
}

StatusOr<PlaceBenchResult> BenchPlace(int nodes, int devices, int reps) {
  // Nodes per block, from two small graphs; then the block count for `nodes`.
  auto count = [](int blocks) -> StatusOr<int> {
    Scope s = Scope::NewRootScope();
    TACT_RETURN_IF_ERROR(BuildInceptionLikeTrainingGraph(s, blocks));
    return s.graph()->num_nodes();
  };
  TACT_ASSIGN_OR_RETURN(int one, count(1));
  TACT_ASSIGN_OR_RETURN(int two, count(2));
  const int blocks = std::max(1, static_cast<int>(std::lround(double(nodes - one) / (two - one))) + 1);

  Scope s = Scope::NewRootScope();
  TACT_RETURN_IF_ERROR(BuildInceptionLikeTrainingGraph(s, blocks));
  Graph* g = s.graph();
  std::vector<std::string> names;
  for (int d = 0; d < devices; ++d) {
    names.push_back("/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(d));
  }
  PlaceBenchResult r;
  r.nodes = g->num_nodes();
  r.edges = g->num_edges();
  r.devices = devices;
  std::vector<double> ms, cpu_ms, part_ms, part_cpu_ms;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (int i = 0; i < reps; ++i) {
    for (Node* n : g->nodes()) n->set_assigned_device("");
    int64_t start = Now(), cpu_start = CpuNow();
    TACT_ASSIGN_OR_RETURN(PlacementReport report, Place(g, names));
    cpu_ms.push_back((CpuNow() - cpu_start) / 1e6);
    ms.push_back((Now() - start) / 1e6);
    r.makespan_seconds = report.makespan_seconds;
    r.bytes_across_devices = report.bytes_across_devices;

    start = Now();
    cpu_start = CpuNow();
    TACT_ASSIGN_OR_RETURN(PartitionResult parts, Partition(*g, PartitionOptions()));
    part_cpu_ms.push_back((CpuNow() - cpu_start) / 1e6);
    part_ms.push_back((Now() - start) / 1e6);
    r.send_recv_pairs = parts.send_recv_pairs;
  }
  r.place_ms = median(ms);
  r.place_cpu_ms = median(cpu_ms);
  r.partition_ms = median(part_ms);
  r.partition_cpu_ms = median(part_cpu_ms);
  return r;
}

namespace {

// --runtime's report: one JSON line, and a table before it without --json.
int PrintPlaceRuntime(int steps, bool json) {
  StatusOr<std::vector<PlaceRuntimeCase>> cases = BenchPlaceRuntime({2, 4}, steps, 3);
  if (!cases.ok()) {
    std::fprintf(stderr, "tact bench place: %s\n", cases.status().ToString().c_str());
    return 1;
  }
  nlohmann::ordered_json line = {{"steps", 3 * steps}, {"cases", nlohmann::json::array()}};
  int greedy_best = 0, measured_best = 0;
  for (const PlaceRuntimeCase& c : *cases) {
    const double greedy = c.step_ms.at("greedy");
    const double others = std::min(c.step_ms.at("one_device"), c.step_ms.at("round_robin"));
    // A way that chose the same plan as the best other one is as fast as
    // it; the times of two sessions running one plan differ by noise alone.
    auto at_or_below = [&](const char* way) {
      const std::string best = c.step_ms.at("one_device") <= c.step_ms.at("round_robin")
                                   ? "one_device" : "round_robin";
      return c.step_ms.at(way) <= others || c.plan.at(way) == c.plan.at(best);
    };
    greedy_best += at_or_below("greedy") ? 1 : 0;
    measured_best += at_or_below("greedy_measured") ? 1 : 0;
    const double measured = c.step_ms.at("greedy_measured");
    std::string same;  // the baselines whose plan greedy chose, for the table
    for (const char* way : {"one_device", "round_robin"}) {
      if (c.plan.at("greedy") == c.plan.at(way)) same = std::string(" (greedy's plan is ") + way + "'s)";
    }
    line["cases"].push_back({{"graph", c.graph},
                             {"devices", c.devices},
                             {"greedy_ms", greedy},
                             {"greedy_measured_ms", measured},
                             {"one_device_ms", c.step_ms.at("one_device")},
                             {"round_robin_ms", c.step_ms.at("round_robin")},
                             {"greedy_over_best_other", greedy / others},
                             {"greedy_measured_over_best_other", measured / others},
                             {"plan", c.plan}});
    if (!json) {
      std::printf("%-5s on %d devices: greedy %7.2f ms (after measuring %7.2f), one device %7.2f "
                  "ms, round-robin %7.2f ms (greedy / best other %.2f, after measuring %.2f)%s\n",
                  c.graph.c_str(), c.devices, greedy, measured, c.step_ms.at("one_device"),
                  c.step_ms.at("round_robin"), greedy / others, measured / others, same.c_str());
    }
  }
  line["greedy_at_or_below_others"] = greedy_best;
  line["greedy_measured_at_or_below_others"] = measured_best;
  line["cases_run"] = cases->size();
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace

void AddBenchPlace(CLI::App& bench, std::function<int()>& run) {
  struct Options {
    int nodes = 36000;
    int devices = 8;
    int reps = 3;
    bool json = false;
    bool runtime = false;
    int steps = 5;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "place", "placer and partitioner time on an Inception-sized training graph (median of --reps)");
  cmd->add_option("--nodes", opts->nodes, "nodes in the graph (about)")
      ->check(CLI::Range(100, 10000000));
  cmd->add_option("--devices", opts->devices, "CPU devices to place on")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--reps", opts->reps, "timed placements")->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->add_flag("--runtime", opts->runtime,
                "instead: run the mlp, the cnn and a wide graph on 2 and 4 devices, placed greedily "
                "(from estimates, and after measuring), on one device and round-robin, and compare "
                "their step times");
  cmd->add_option("--steps", opts->steps, "with --runtime: steps per round (3 rounds)")
      ->check(CLI::Range(1, 1000));
  cmd->callback([opts, &run] {
    run = [opts] {
      if (opts->runtime) return PrintPlaceRuntime(opts->steps, opts->json);
      StatusOr<PlaceBenchResult> r = BenchPlace(opts->nodes, opts->devices, opts->reps);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench place: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const nlohmann::ordered_json line = {{"nodes", r->nodes},
                                           {"devices", r->devices},
                                           {"place_ms", r->place_ms},
                                           {"place_cpu_ms", r->place_cpu_ms},
                                           {"partition_ms", r->partition_ms},
                                           {"partition_cpu_ms", r->partition_cpu_ms},
                                           {"send_recv_pairs", r->send_recv_pairs},
                                           {"edges", r->edges},
                                           {"makespan_s", r->makespan_seconds},
                                           {"bytes_across_devices", r->bytes_across_devices}};
      if (!opts->json) {
        std::printf("place, %d nodes, %d edges on %d devices: %.1f ms, %.1f ms of CPU; "
                    "partition: %.1f ms, %.1f ms of CPU, %d send/recv pairs (medians of %d); "
                    "simulated step %.3f s\n",
                    r->nodes, r->edges, r->devices, r->place_ms, r->place_cpu_ms,
                    r->partition_ms, r->partition_cpu_ms, r->send_recv_pairs, opts->reps,
                    r->makespan_seconds);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
