// `tact bench matmul`: the MatMul CPU kernel, built and run the way the
// executor runs it (NodeProperties -> CreateOpKernel -> Compute, a fresh
// output each time, blocks on the device's `threads` threads), beside a
// direct cblas_sgemm on the same matrices on OpenBLAS's own `threads`
// threads. The gap between the two is what tact adds to BLAS.
#include <cblas.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "apps/bench/bench.h"
#include "kernels/cpu/blas_gemm.h"
#include "devices/device.h"
#include "graph/node_properties.h"
#include "kernels/kernel_registry.h"

namespace tact::apps {
namespace {

// The mean of the two middles for an even count (bench.h's Median takes the upper).
double AveragedMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

template <typename Fn>
double Seconds(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Tensor RandomMatrix(int64_t n, uint32_t seed) {
  Tensor t(DT_FLOAT, {n, n});
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < n * n; ++i) p[i] = dist(gen);
  return t;
}

StatusOr<std::unique_ptr<OpKernel>> MatMulKernel(Device* device) {
  NodeDef def;
  def.name = "bench_matmul";
  def.op = "MatMul";
  def.attrs["T"] = AttrValue::Type(DT_FLOAT);
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<const NodeProperties> props,
                        NodeProperties::Create(std::move(def)));
  return CreateOpKernel(device, props);
}

}  // namespace

StatusOr<MatmulBenchResult> BenchMatmul(int64_t n, int threads, int reps) {
  if (n < 1 || threads < 1 || reps < 1) {
    return errors::InvalidArgument("n, threads and reps must be >= 1");
  }
  std::unique_ptr<Device> device =
      NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", threads);
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, MatMulKernel(device.get()));
  const std::vector<Tensor> inputs = {RandomMatrix(n, 1), RandomMatrix(n, 2)};
  const float* a = inputs[0].data<float>();
  const float* b = inputs[1].data<float>();
  // The direct call's result lives in a tensor too, so both sides write
  // memory of the same alignment from the same allocator.
  Tensor direct_out(DT_FLOAT, {n, n});
  float* c = direct_out.data<float>();
  const int dim = static_cast<int>(n);
  auto direct = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, dim, dim, dim, 1.0f, a, dim, b, dim,
                0.0f, c, dim);
  };
  // tact's kernels keep OpenBLAS at one thread (blas_gemm.h); the peer gets
  // its threads only while it runs, outside the timed call.
  auto timed_direct = [&] {
    SetBlasThreads(threads);
    const double s = Seconds(direct);
    SetBlasThreads(1);
    return s;
  };
  Tensor product;
  Status status;
  auto run_kernel = [&] {
    // Free the last product first, as the executor frees a step's outputs
    // before the next step: the allocator can then hand the same block back.
    product = Tensor();
    OpKernelContext::Params params;
    params.device = device.get();
    params.op_kernel = kernel.get();
    params.inputs = inputs.data();
    params.num_inputs = static_cast<int>(inputs.size());
    OpKernelContext ctx(params);
    kernel->Compute(&ctx);
    status = ctx.status();
    product = ctx.output(0);
  };
  for (int i = 0; i < 2; ++i) {  // warm-up: BLAS threads, buffers, page faults
    timed_direct();
    run_kernel();
    TACT_RETURN_IF_ERROR(status);
  }
  std::vector<double> kernel_s, direct_s;
  for (int i = 0; i < reps; ++i) {
    // Alternate the order so neither side always runs on a warmer cache.
    if (i % 2 == 0) direct_s.push_back(timed_direct());
    kernel_s.push_back(Seconds(run_kernel));
    TACT_RETURN_IF_ERROR(status);
    if (i % 2 == 1) direct_s.push_back(timed_direct());
  }
  const float* p = product.data<float>();
  for (int64_t i = 0; i < n * n; ++i) {
    if (std::abs(p[i] - c[i]) > 1e-3f * (1.0f + std::abs(c[i]))) {
      return errors::Internal("MatMul kernel and cblas_sgemm differ at element ", i, ": ", p[i],
                              " vs ", c[i]);
    }
  }
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  MatmulBenchResult r;
  r.n = n;
  r.threads = threads;
  r.gflops = flops / AveragedMedian(kernel_s) / 1e9;
  r.blas_direct_gflops = flops / AveragedMedian(direct_s) / 1e9;
  return r;
}

void AddBenchMatmul(CLI::App& bench, std::function<int()>& run) {
  struct Options {
    int64_t n = 1024;
    int threads = 1;
    int reps = 9;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand(
      "matmul", "float n x n MatMul: the kernel via OpKernel::Compute beside cblas_sgemm");
  cmd->add_option("--n", opts->n, "matrix size")->check(CLI::Range(int64_t{1}, int64_t{46340}));
  cmd->add_option("--threads", opts->threads, "device threads (kernel) and OpenBLAS threads (direct)")->check(CLI::Range(1, 1024));
  cmd->add_option("--reps", opts->reps, "timed repetitions of each (median reported)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] {
    run = [opts] {
      StatusOr<MatmulBenchResult> r = BenchMatmul(opts->n, opts->threads, opts->reps);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench matmul: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const nlohmann::ordered_json line = {{"n", r->n},
                                   {"threads", r->threads},
                                   {"gflops", r->gflops},
                                   {"blas_direct_gflops", r->blas_direct_gflops}};
      if (!opts->json) {
        std::printf("matmul n=%lld threads=%d: kernel %.1f GFLOP/s, cblas_sgemm %.1f GFLOP/s "
                    "(kernel/direct %.3f)\n",
                    static_cast<long long>(r->n), r->threads, r->gflops, r->blas_direct_gflops,
                    r->gflops / r->blas_direct_gflops);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
