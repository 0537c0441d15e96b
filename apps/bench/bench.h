// `tact bench ...`: benchmarks that print one JSON line each, measuring a
// tact path beside its peer in the same run (DESIGN.md, "Figures we hold
// ourselves to"). bench.cc creates the `bench` group; each benchmark lives
// in its own bench_<name>.cc and adds its subcommand through one function
// declared here, so a new benchmark is one file and one line in bench.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>
#include <string>

#include "graph/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tact {
class Scope;
}  // namespace tact

namespace tact::apps {

// The middle of `v` (the upper of the two middles when `v` has an even
// size); `v` must not be empty.
double Median(std::vector<double> v);

// The path of scripts/peer/`name`, the peers that benchmarks run beside
// tact, in the source tree (TACT_SOURCE_DIR where set).
std::string PeerScript(const std::string& name);
// What the shell command `cmd` prints on stdout, or nullopt where it
// cannot start or exits with another status than 0.
std::optional<std::string> CommandOutput(const std::string& cmd);

// `tact bench matmul --n N --threads T [--transpose_a] [--transpose_b] [--runs R]
// [--reps K] [--json]`.
void AddBenchMatmul(CLI::App& bench, std::function<int()>& run);

struct MatmulBenchOptions {
  int64_t n = 1024;
  int threads = 1;
  bool transpose_a = false, transpose_b = false;
  int runs = 10;  // each a kernel phase and a direct phase
  int reps = 9;   // timed calls per phase (its median is the run's figure)
  std::string device = "cpu";  // or "gpu": BenchMatmulGpu
  std::string dtype = "float";  // on the GPU also "bfloat16"
};

struct MatmulBenchResult {
  MatmulBenchOptions options;
  // Per run, in the order run: GFLOP/s of the MatMul kernel through
  // OpKernel::Compute, of cblas_sgemm on the same matrices, and their ratio.
  std::vector<double> gflops, blas_direct_gflops, ratio;
};

// Multiplies two random float n x n matrices, `runs` times: a phase of
// `reps` kernel calls, then a phase of `reps` direct calls (each after two
// warm-up calls), with a pause after each phase so that the other side's
// threads are asleep when a phase starts. Sets OpenBLAS's thread count to
// `threads` (process-wide) during the direct phases only. Internal if the
// two results differ.
StatusOr<MatmulBenchResult> BenchMatmul(const MatmulBenchOptions& options);
// The same on GPU 0 (bench_matmul_gpu.cc): the MatMul GPU kernel through
// OpKernel::Compute beside a direct cublasGemmEx of the same shapes and
// types on the same stream; blas_direct_gflops holds cuBLAS's figures.
// Unavailable without a GPU, or in a build without CUDA.
StatusOr<MatmulBenchResult> BenchMatmulGpu(const MatmulBenchOptions& options);

// `tact bench executor --nodes N [--reps R] [--json]`.
void AddBenchExecutor(CLI::App& bench, std::function<int()>& run);

struct ExecutorBenchResult {
  int nodes = 0;
  double ns_per_node_chain = 0;  // a chain of N scalar Adds, per node, Run included
  double ns_per_node_wide = 0;   // N independent Adds joined by AddN trees, per Add
  // The wide graph's nodes (each Add has a Const of its own, and the AddN
  // trees join them), and its Run time per node of it.
  int wide_graph_nodes = 0;
  double ns_per_graph_node_wide = 0;
  double run_overhead_us = 0;    // one Run of a one-node graph
  // A WhileLoop of N iterations whose body is one scalar Add (8 nodes an
  // iteration with the loop's own), per iteration, Run included.
  double ns_per_loop_iteration = 0;
  // Every timed Run of the chain and of the wide graph, per Add, in order.
  std::vector<double> chain_runs_ns, wide_runs_ns;
  // The chain's work in a plain loop, timed right after each Run of the
  // chain, per node; and each Run's time (of the chain, of the wide graph)
  // over the time of that loop run right after it.
  std::vector<double> plain_runs_ns, chain_over_plain, wide_over_plain;
};

// Builds each graph in its own Session and reports median Run times.
StatusOr<ExecutorBenchResult> BenchExecutor(int nodes, int reps);

// `tact bench place --nodes N --devices D [--reps R] [--json]`.
void AddBenchPlace(CLI::App& bench, std::function<int()>& run);

struct PlaceBenchResult {
  int nodes = 0;
  int edges = 0;
  int devices = 0;
  double place_ms = 0;      // median wall time of the timed Place() calls
  double place_cpu_ms = 0;  // median CPU time of the same calls
  double partition_ms = 0;      // median wall time of Partition() of each placement
  double partition_cpu_ms = 0;  // median CPU time of the same calls
  int send_recv_pairs = 0;
  double makespan_seconds = 0;
  int64_t bytes_across_devices = 0;
};

// An Inception-like training graph of `blocks` blocks (four convolution
// branches concatenated, ~130 nodes each with gradients and updates) in
// `s`; what `tact bench place` places.
Status BuildInceptionLikeTrainingGraph(const Scope& s, int blocks);

// Builds the graph with about `nodes` nodes and times Place() on `devices`
// CPUs, then Partition() of that placement, `reps` times (the assignment
// cleared between runs).
StatusOr<PlaceBenchResult> BenchPlace(int nodes, int devices, int reps);

// `tact bench place --runtime`: one graph on one device count, with the
// median step time of each way of placing it ("greedy", "greedy_measured",
// "one_device", "round_robin").
struct PlaceRuntimeCase {
  std::string graph;  // "mlp", "cnn" (a training step each) or "wide"
  int devices = 0;
  std::map<std::string, double> step_ms;
  // By way: a number that two ways share when their steps ran every node
  // on the same device (the same plan: their times differ only by noise).
  std::map<std::string, int> plan;
};

// Runs the mlp's and the cnn's training steps and a wide graph of eight
// independent MatMul branches on each of `device_counts` CPU devices (one
// thread each), placed each way: `rounds` rounds of `steps` steps of each,
// alternated.
StatusOr<std::vector<PlaceRuntimeCase>> BenchPlaceRuntime(const std::vector<int>& device_counts,
                                                          int steps, int rounds);

// `tact bench train --model {mlp,cnn} [--steps N]`: images/s beside PyTorch.
void AddBenchTrain(CLI::App& bench, std::function<int()>& run);
// `tact bench profile --model M [--batch B] [--steps N] [--threads T] [--gpus G] [--json]`:
// a training step's time by op type (bench_profile.cc).
void AddBenchProfile(CLI::App& bench, std::function<int()>& run);

// `tact bench sendrecv --bytes N [--reps R] [--json]`: a tensor between two
// worker processes beside raw TCP.
void AddBenchSendRecv(CLI::App& bench, std::function<int()>& run);

// `tact bench distributed --model {mlp,cnn} [--ps P] [--workers W]
// [--steps N] [--runs R]`: sync training on a local cluster beside one
// process, same global batch.
void AddBenchDistributed(CLI::App& bench, std::function<int()>& run);

// `tact bench input --model M [--workers W] [--steps N] [--runs R]`.
void AddBenchInput(CLI::App& bench, std::function<int()>& run);

// `tact bench async --model M [--workers W] [--steps N] [--runs R] [--slow-ms MS]`.
void AddBenchAsync(CLI::App& bench, std::function<int()>& run);

// `tact bench serve --model {mlp,cnn} [--batch B] [--clients 1,4] [--requests N]
// [--runs R] [--threads T] [--json]`: inference requests/s and latency from
// client threads on one Session, beside the mlp computed directly.
void AddBenchServe(CLI::App& bench, std::function<int()>& run);

// `tact bench embedding --vocab V --dim D --batch B [--runs R] [--json]`: an
// embedding lookup's gradient beside a plain loop and the one-hot product.
void AddBenchEmbedding(CLI::App& bench, std::function<int()>& run);

// `tact bench batchnorm --shape N,H,W,C [--threads T] [--runs R] [--json]`:
// batch normalization's forward and gradient beside a memcpy and PyTorch.
void AddBenchBatchNorm(CLI::App& bench, std::function<int()>& run);

// `tact bench checkpoint --params N [--reps R] [--dir D] [--json]`: a
// checkpoint's save and restore beside raw write+fsync and read.
void AddBenchCheckpoint(CLI::App& bench, std::function<int()>& run);

struct CheckpointBenchResult {
  int64_t params = 0;
  int variables = 0;
  double save_mb_s = 0;       // WriteCheckpointShard + CommitCheckpoint
  double restore_mb_s = 0;    // ReadCheckpoint, page cache dropped first
  double raw_write_mb_s = 0;  // write() of the same bytes + fsync
  double raw_read_mb_s = 0;   // read() of them into fresh buffers, cache dropped
};

// Saves and restores `params` float32 parameters in `dir` (which must exist
// and hold no checkpoint) `reps` times after a warm-up, alternating with the
// raw peer; medians. Leaves one checkpoint and raw.bin in `dir`.
StatusOr<CheckpointBenchResult> BenchCheckpoint(int64_t params, int reps, const std::string& dir);

}  // namespace tact::apps
