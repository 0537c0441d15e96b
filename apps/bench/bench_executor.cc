// `tact bench executor --nodes N [--reps R] [--json]`: what the runtime
// costs per node and per Run, all through Session::Run:
//   ns_per_node_chain  a chain of N scalar Adds (no parallelism to find)
//   ns_per_node_wide   N independent scalar Adds (each with a Const of its
//                      own) joined by AddN trees
//   run_overhead_us    one Run of a graph of one node
//   ns_per_loop_iteration  a WhileLoop of N iterations of i = i + 1 (the
//                      executor with frames: Merge, Less, LoopCond, Switch,
//                      Identity, Const, Add and NextIteration an iteration)
//   ns_per_graph_node_wide  the wide graph's Run per node of it (about 2.1
//                      nodes an Add: its Const, itself, its share of AddN)
// Each figure is the median of R timed Runs after warm-up, less nothing:
// the chain and wide figures include the Run overhead, spread over N.
// chain_runs_ns and wide_runs_ns give the min/median/max over the R Runs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

// The seconds of each of `reps` Runs fetching `fetch` from the graph of `s`.
StatusOr<std::vector<double>> TimeRuns(const Scope& s, const std::string& fetch, int reps) {
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  for (int i = 0; i < 5; ++i) TACT_RETURN_IF_ERROR(session->Run({}, {fetch}, {}).status());
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(session->Run({}, {fetch}, {}).status());
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return times;
}

// Each time as nanoseconds per one of `per` things.
std::vector<double> NsPer(const std::vector<double>& seconds, int per) {
  std::vector<double> ns;
  for (double t : seconds) ns.push_back(t * 1e9 / per);
  return ns;
}

nlohmann::ordered_json MinMedianMax(const std::vector<double>& v) {
  return {{"min", *std::min_element(v.begin(), v.end())},
          {"median", Median(v)},
          {"max", *std::max_element(v.begin(), v.end())}};
}

}  // namespace

StatusOr<ExecutorBenchResult> BenchExecutor(int nodes, int reps) {
  ExecutorBenchResult r;
  r.nodes = nodes;
  {
    Scope s = Scope::NewRootScope();
    Output x = Const(s, Tensor::Scalar<float>(0));
    Output one = Const(s, Tensor::Scalar<float>(1));
    for (int i = 0; i < nodes; ++i) x = Add(s, x, one);
    Identity(s.WithOpName("out"), x);
    TACT_ASSIGN_OR_RETURN(std::vector<double> t, TimeRuns(s, "out", reps));
    r.chain_runs_ns = NsPer(t, nodes);
    r.ns_per_node_chain = Median(r.chain_runs_ns);
  }
  {
    Scope s = Scope::NewRootScope();
    // Each Add has a constant of its own: N Adds of the same inputs would
    // be one node after common subexpression elimination.
    Output one = Const(s, Tensor::Scalar<float>(1));
    std::vector<Output> layer;
    for (int i = 0; i < nodes; ++i) {
      layer.push_back(Add(s, one, Const(s, Tensor::Scalar<float>(static_cast<float>(i)))));
    }
    while (layer.size() > 1) {  // AddN trees of fan-in 8
      std::vector<Output> next;
      for (size_t i = 0; i < layer.size(); i += 8) {
        std::vector<Input> group(layer.begin() + i, layer.begin() + std::min(layer.size(), i + 8));
        next.push_back(group.size() == 1 ? layer[i] : AddN(s, group));
      }
      layer = std::move(next);
    }
    Identity(s.WithOpName("out"), layer[0]);
    TACT_ASSIGN_OR_RETURN(std::vector<double> t, TimeRuns(s, "out", reps));
    r.wide_runs_ns = NsPer(t, nodes);
    r.ns_per_node_wide = Median(r.wide_runs_ns);
    r.wide_graph_nodes = s.graph()->num_nodes();
    r.ns_per_graph_node_wide = Median(NsPer(t, r.wide_graph_nodes));
  }
  {
    Scope s = Scope::NewRootScope();
    std::vector<Output> loop = WhileLoop(
        s, {Const(s, Tensor::Scalar<float>(0))},
        [nodes](const Scope& c, const std::vector<Output>& v) {
          return Less(c, v[0], static_cast<float>(nodes));
        },
        [](const Scope& b, const std::vector<Output>& v) {
          return std::vector<Output>{Add(b, v[0], 1.0f)};
        });
    if (!loop.empty()) Identity(s.WithOpName("out"), loop[0]);
    TACT_ASSIGN_OR_RETURN(std::vector<double> t, TimeRuns(s, "out", reps));
    r.ns_per_loop_iteration = Median(NsPer(t, nodes));
  }
  {
    Scope s = Scope::NewRootScope();
    Const(s.WithOpName("out"), Tensor::Scalar<float>(1));
    TACT_ASSIGN_OR_RETURN(std::vector<double> t, TimeRuns(s, "out", reps * 10));
    r.run_overhead_us = Median(t) * 1e6;
  }
  return r;
}

void AddBenchExecutor(CLI::App& bench, std::function<int()>& run) {
  struct Options {
    int nodes = 1000;
    int reps = 51;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "executor", "per-node and per-Run cost of Session::Run on chains and wide graphs");
  cmd->add_option("--nodes", opts->nodes, "nodes per graph")->check(CLI::Range(1, 10000000));
  cmd->add_option("--reps", opts->reps, "timed Runs (median reported)")->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] {
    run = [opts] {
      StatusOr<ExecutorBenchResult> r = BenchExecutor(opts->nodes, opts->reps);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench executor: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const nlohmann::ordered_json line = {{"nodes", r->nodes},
                                           {"ns_per_node_chain", r->ns_per_node_chain},
                                           {"ns_per_node_wide", r->ns_per_node_wide},
                                           {"run_overhead_us", r->run_overhead_us},
                                           {"ns_per_loop_iteration", r->ns_per_loop_iteration},
                                           {"wide_graph_nodes", r->wide_graph_nodes},
                                           {"ns_per_graph_node_wide", r->ns_per_graph_node_wide},
                                           {"chain_runs_ns", MinMedianMax(r->chain_runs_ns)},
                                           {"wide_runs_ns", MinMedianMax(r->wide_runs_ns)}};
      if (!opts->json) {
        std::printf("executor, %d nodes: chain %.0f ns/node, wide %.0f ns/node, Run %.1f us, "
                    "loop %.0f ns/iteration\n",
                    r->nodes, r->ns_per_node_chain, r->ns_per_node_wide, r->run_overhead_us,
                    r->ns_per_loop_iteration);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
