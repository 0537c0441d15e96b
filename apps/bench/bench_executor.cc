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
//   plain_ns_per_node  the chain's work without the runtime (PlainChain),
//                      timed right after each Run of the chain
//   chain_over_plain   the chain's Run over that plain loop, run by run
//   wide_over_plain    the wide graph's Run over the plain loop timed
//                      right after it, run by run
// Each figure is the median of R timed Runs after warm-up, less nothing:
// the chain and wide figures include the Run overhead, spread over N.
// chain_runs_ns, plain_runs_ns, wide_runs_ns and the two ratios give the
// min/median/max over the R Runs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "actors/session.h"
#include "apps/bench/bench.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The seconds of each of `reps` Runs fetching `fetch` from the graph of `s`;
// with a `peer`, the seconds of a call of it right after each Run go to
// `peer_times`.
StatusOr<std::vector<double>> TimeRuns(const Scope& s, const std::string& fetch, int reps,
                                       const std::function<Status()>& peer = nullptr,
                                       std::vector<double>* peer_times = nullptr) {
  TACT_RETURN_IF_ERROR(s.status());
  TACT_ASSIGN_OR_RETURN(GraphDef def, s.ToGraphDef());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create());
  TACT_RETURN_IF_ERROR(session->Extend(def));
  for (int i = 0; i < 5; ++i) TACT_RETURN_IF_ERROR(session->Run({}, {fetch}, {}).status());
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(session->Run({}, {fetch}, {}).status());
    times.push_back(SecondsSince(start));
    if (!peer) continue;
    const auto peer_start = std::chrono::steady_clock::now();
    TACT_RETURN_IF_ERROR(peer());
    peer_times->push_back(SecondsSince(peer_start));
  }
  return times;
}

// The chain's work without the runtime: `nodes` scalar tensors, each
// allocated, computed from the one before, which is then released, as the
// chain's Adds do (theirs come from the device's allocator, these from
// CpuAllocator(), the same host memory). It tells what the host gives for
// that work at the moment of each Run: the 2-vCPU machines this was written
// on move between two speeds, about 1.8x apart, for tenths of a second to
// seconds at a time, and the plain loop moves with the chain
// (docs/performance.md, session 37).
Status PlainChain(int nodes) {
  Tensor x = Tensor::Scalar<float>(0);
  for (int i = 0; i < nodes; ++i) {
    Tensor next(DT_FLOAT, TensorShape());
    *next.data<float>() = *x.data<float>() + 1;
    x = std::move(next);
  }
  if (*x.data<float>() != static_cast<float>(nodes)) {
    return errors::Internal("the plain chain summed to ", *x.data<float>(), ", not ", nodes);
  }
  return Status::OK();
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
    std::vector<double> plain;
    TACT_ASSIGN_OR_RETURN(std::vector<double> t,
                          TimeRuns(s, "out", reps, [nodes] { return PlainChain(nodes); }, &plain));
    r.chain_runs_ns = NsPer(t, nodes);
    r.ns_per_node_chain = Median(r.chain_runs_ns);
    r.plain_runs_ns = NsPer(plain, nodes);
    for (size_t i = 0; i < t.size(); ++i) r.chain_over_plain.push_back(t[i] / plain[i]);
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
    std::vector<double> plain;
    TACT_ASSIGN_OR_RETURN(std::vector<double> t,
                          TimeRuns(s, "out", reps, [nodes] { return PlainChain(nodes); }, &plain));
    for (size_t i = 0; i < t.size(); ++i) r.wide_over_plain.push_back(t[i] / plain[i]);
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
                                           {"plain_ns_per_node", Median(r->plain_runs_ns)},
                                           {"plain_runs_ns", MinMedianMax(r->plain_runs_ns)},
                                           {"chain_over_plain", MinMedianMax(r->chain_over_plain)},
                                           {"wide_runs_ns", MinMedianMax(r->wide_runs_ns)},
                                           {"wide_over_plain", MinMedianMax(r->wide_over_plain)}};
      if (!opts->json) {
        std::printf("executor, %d nodes: chain %.0f ns/node (%.2fx the plain loop's), "
                    "wide %.0f ns/node, Run %.1f us, loop %.0f ns/iteration\n",
                    r->nodes, r->ns_per_node_chain, Median(r->chain_over_plain), r->ns_per_node_wide,
                    r->run_overhead_us, r->ns_per_loop_iteration);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
