// `tact bench matmul`: the MatMul CPU kernel, built and run the way the
// executor runs it (NodeProperties -> CreateOpKernel -> Compute, a fresh
// output each time, blocks on the device's `threads` threads), beside a
// direct cblas_sgemm on the same matrices on OpenBLAS's own `threads`
// threads. The gap between the two is what tact adds to BLAS.
//
// The two sides run in separate phases with a pause between them. When
// they alternated call by call, a third of the runs measured the kernel at
// half speed: after a direct call OpenBLAS's worker threads spin for a
// while (up to 2^28 cycles, about 0.1 s) before they sleep, and a spinning
// worker on one of the two cores halves a kernel that wants both. Without
// the direct calls the kernel never showed the slow mode (24 runs).
#include <cblas.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "devices/device.h"
#include "graph/node_properties.h"
#include "kernels/cpu/blas_gemm.h"
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

// Longer than OpenBLAS's workers spin after a call (2^28 cycles: 0.1 s at
// 2.7 GHz) and than Eigen's pool threads spin looking for work.
constexpr auto kPause = std::chrono::milliseconds(250);

Tensor RandomMatrix(int64_t n, uint32_t seed) {
  Tensor t(DT_FLOAT, {n, n});
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < n * n; ++i) p[i] = dist(gen);
  return t;
}

StatusOr<std::unique_ptr<OpKernel>> MatMulKernel(Device* device, bool ta, bool tb) {
  NodeDef def;
  def.name = "bench_matmul";
  def.op = "MatMul";
  def.attrs["T"] = AttrValue::Type(DT_FLOAT);
  def.attrs["transpose_a"] = AttrValue::Bool(ta);
  def.attrs["transpose_b"] = AttrValue::Bool(tb);
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<const NodeProperties> props,
                        NodeProperties::Create(std::move(def)));
  return CreateOpKernel(device, props);
}

}  // namespace

StatusOr<MatmulBenchResult> BenchMatmul(const MatmulBenchOptions& o) {
  if (o.n < 1 || o.threads < 1 || o.reps < 1 || o.runs < 1) {
    return errors::InvalidArgument("n, threads, runs and reps must be >= 1");
  }
  const int64_t n = o.n;
  std::unique_ptr<Device> device =
      NewCpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", o.threads);
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                        MatMulKernel(device.get(), o.transpose_a, o.transpose_b));
  const std::vector<Tensor> inputs = {RandomMatrix(n, 1), RandomMatrix(n, 2)};
  const float* a = inputs[0].data<float>();
  const float* b = inputs[1].data<float>();
  // The direct call's result lives in a tensor too, so both sides write
  // memory of the same alignment from the same allocator.
  Tensor direct_out(DT_FLOAT, {n, n});
  float* c = direct_out.data<float>();
  const int dim = static_cast<int>(n);
  const CBLAS_TRANSPOSE ta = o.transpose_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = o.transpose_b ? CblasTrans : CblasNoTrans;
  auto direct = [&] {
    cblas_sgemm(CblasRowMajor, ta, tb, dim, dim, dim, 1.0f, a, dim, b, dim, 0.0f, c, dim);
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
  // A phase: two warm-up calls (threads, buffers, page faults), then the
  // median of `reps` timed ones, then the pause.
  auto phase = [&](auto&& call) {
    std::vector<double> s;
    for (int i = 0; i < 2 + o.reps; ++i) {
      const double t = Seconds(call);
      if (i >= 2) s.push_back(t);
    }
    std::this_thread::sleep_for(kPause);
    return AveragedMedian(s);
  };
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  MatmulBenchResult r;
  r.options = o;
  for (int run = 0; run < o.runs; ++run) {
    const double kernel_s = phase(run_kernel);
    TACT_RETURN_IF_ERROR(status);
    // tact's kernels keep OpenBLAS at one thread (blas_gemm.h); the peer
    // gets its threads for its own phase only.
    SetBlasThreads(o.threads);
    const double direct_s = phase(direct);
    SetBlasThreads(1);
    r.gflops.push_back(flops / kernel_s / 1e9);
    r.blas_direct_gflops.push_back(flops / direct_s / 1e9);
    r.ratio.push_back(r.gflops.back() / r.blas_direct_gflops.back());
  }
  const float* p = product.data<float>();
  for (int64_t i = 0; i < n * n; ++i) {
    if (std::abs(p[i] - c[i]) > 1e-3f * (1.0f + std::abs(c[i]))) {
      return errors::Internal("MatMul kernel and cblas_sgemm differ at element ", i, ": ", p[i],
                              " vs ", c[i]);
    }
  }
  return r;
}

void AddBenchMatmul(CLI::App& bench, std::function<int()>& run) {
  auto opts = std::make_shared<MatmulBenchOptions>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = bench.add_subcommand(
      "matmul", "float n x n MatMul: the kernel via OpKernel::Compute beside cblas_sgemm");
  cmd->add_option("--n", opts->n, "matrix size")->check(CLI::Range(int64_t{1}, int64_t{46340}));
  cmd->add_option("--threads", opts->threads,
                  "device threads (kernel) and OpenBLAS threads (direct)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--transpose_a", opts->transpose_a, "multiply by A^T (stored transposed)");
  cmd->add_flag("--transpose_b", opts->transpose_b, "multiply by B^T (stored transposed)");
  cmd->add_option("--runs", opts->runs, "runs, each a kernel phase and a direct phase")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--reps", opts->reps, "timed calls per phase (median taken)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--device", opts->device, "cpu, or gpu (beside cublasGemmEx)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--dtype", opts->dtype, "float, or on the GPU bfloat16")
      ->check(CLI::IsMember({"float", "bfloat16"}));
  cmd->add_flag("--json", *json, "print only the JSON line");
  cmd->callback([opts, json, &run] {
    run = [opts, json] {
      const bool gpu = opts->device == "gpu";
      if (!gpu && opts->dtype != "float") {
        std::fprintf(stderr, "tact bench matmul: --dtype %s needs --device gpu\n", opts->dtype.c_str());
        return 1;
      }
      StatusOr<MatmulBenchResult> r = gpu ? BenchMatmulGpu(*opts) : BenchMatmul(*opts);
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench matmul: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const char* peer = gpu ? "cublas_direct_gflops" : "blas_direct_gflops";
      const nlohmann::ordered_json line = {
          {"device", opts->device},
          {"dtype", opts->dtype},
          {"n", opts->n},
          {"threads", opts->threads},
          {"transpose_a", opts->transpose_a},
          {"transpose_b", opts->transpose_b},
          {"gflops", Median(r->gflops)},
          {peer, Median(r->blas_direct_gflops)},
          {"kernel_over_direct", Spread(r->ratio)},
          {"kernel_gflops", Spread(r->gflops)},
          {"direct_gflops", Spread(r->blas_direct_gflops)}};
      if (!*json) {
        const double worst = *std::min_element(r->ratio.begin(), r->ratio.end());
        std::printf("matmul %s %s n=%lld threads=%d%s%s: kernel %.1f GFLOP/s, %s %.1f GFLOP/s "
                    "(kernel/direct median %.3f, worst run %.3f)\n",
                    opts->device.c_str(), opts->dtype.c_str(), static_cast<long long>(opts->n), opts->threads,
                    opts->transpose_a ? " A^T" : "", opts->transpose_b ? " B^T" : "",
                    Median(r->gflops), gpu ? "cublasGemmEx" : "cblas_sgemm", Median(r->blas_direct_gflops),
                    Median(r->ratio), worst);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
