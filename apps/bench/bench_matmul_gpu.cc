// `tact bench matmul --device gpu`: the MatMul GPU kernel as the executor
// runs it (CreateOpKernel on a GpuDevice, OpKernel::Compute, a fresh output
// from the device's allocator each call) beside a direct cublasGemmEx of the
// same shapes and types, on the same stream and handle, into a buffer
// allocated once. Each phase enqueues its calls and then waits for the
// stream, so the figures include what the host pays to enqueue; the gap
// between the two is what tact adds to cuBLAS.
#include "apps/bench/bench.h"

#ifdef TACT_HAVE_CUDA
#include <chrono>
#include <random>

#include "devices/gpu/gpu_device.h"
#include "graph/node_properties.h"
#include "kernels/kernel_registry.h"

namespace tact::apps {
namespace {

StatusOr<Tensor> RandomOnDevice(gpu::GpuDevice* device, DataType dtype, int64_t n, uint32_t seed) {
  Tensor host(DT_FLOAT, {n, n});
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n * n; ++i) host.data<float>()[i] = dist(gen);
  if (dtype == DT_BFLOAT16) {
    Tensor b(DT_BFLOAT16, {n, n});
    for (int64_t i = 0; i < n * n; ++i) b.data<bfloat16>()[i] = bfloat16(host.data<float>()[i]);
    host = b;
  }
  return device->CopyHostToDevice(host);
}

StatusOr<std::vector<float>> ToHostFloats(gpu::GpuDevice* device, const Tensor& t) {
  TACT_RETURN_IF_ERROR(device->Synchronize());
  std::vector<float> out(t.NumElements());
  const bool bf16 = t.dtype() == DT_BFLOAT16;
  std::vector<bfloat16> raw(bf16 ? t.NumElements() : 0);
  void* dst = bf16 ? static_cast<void*>(raw.data()) : static_cast<void*>(out.data());
  TACT_RETURN_IF_ERROR(gpu::CudaStatus(cudaMemcpy(dst, t.raw_data(), t.TotalBytes(), cudaMemcpyDeviceToHost),
                                       "cudaMemcpy"));
  for (size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<float>(raw[i]);
  return out;
}

}  // namespace

StatusOr<MatmulBenchResult> BenchMatmulGpu(const MatmulBenchOptions& o) {
  if (o.n < 1 || o.reps < 1 || o.runs < 1) return errors::InvalidArgument("n, runs and reps must be >= 1");
  if (o.dtype != "float" && o.dtype != "bfloat16") {
    return errors::InvalidArgument("--dtype on the GPU is float or bfloat16, not '", o.dtype, "'");
  }
  const DataType dtype = o.dtype == "float" ? DT_FLOAT : DT_BFLOAT16;
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuDevice> device,
                        gpu::GpuDevice::Create("/job:localhost/replica:0/task:0/device:GPU:0", 0, {}));
  NodeDef def;
  def.name = "bench_matmul";
  def.op = "MatMul";
  def.attrs["T"] = AttrValue::Type(dtype);
  def.attrs["transpose_a"] = AttrValue::Bool(o.transpose_a);
  def.attrs["transpose_b"] = AttrValue::Bool(o.transpose_b);
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<const NodeProperties> props, NodeProperties::Create(std::move(def)));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateOpKernel(device.get(), props));
  const int64_t n = o.n;
  std::vector<Tensor> inputs(2);
  TACT_ASSIGN_OR_RETURN(inputs[0], RandomOnDevice(device.get(), dtype, n, 1));
  TACT_ASSIGN_OR_RETURN(inputs[1], RandomOnDevice(device.get(), dtype, n, 2));
  TACT_ASSIGN_OR_RETURN(Tensor direct_out, Tensor::Allocate(device->allocator(), dtype, {n, n}));

  Tensor product;
  Status status;
  auto run_kernel = [&] {
    product = Tensor();  // freed first, as the executor frees a step's outputs
    OpKernelContext::Params params;
    params.device = device.get();
    params.op_kernel = kernel.get();
    params.inputs = inputs.data();
    params.num_inputs = 2;
    OpKernelContext ctx(params);
    kernel->Compute(&ctx);
    if (status.ok()) status = ctx.status();
    product = ctx.output(0);
  };
  // The same product the kernel computes (row-major, so B and A swap: see
  // kernels/gpu/matmul_gpu_ops.cc), with the same types and algorithm choice.
  const cudaDataType_t type = dtype == DT_FLOAT ? CUDA_R_32F : CUDA_R_16BF;
  const float alpha = 1, beta = 0;
  const int dim = static_cast<int>(n);
  const gpu::CublasLibrary& cublas = device->cublas_library();
  auto direct = [&] {
    cublasStatus_t s = cublas.gemm_ex(device->cublas(), o.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                      o.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, dim, dim, dim, &alpha,
                                      inputs[1].raw_data(), type, dim, inputs[0].raw_data(), type, dim,
                                      &beta, direct_out.raw_data(), type, dim, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS && status.ok()) {
      status = errors::Internal("cublasGemmEx failed: ", cublas.status_string(s));
    }
  };
  // A phase: two warm-up calls, then `reps` calls enqueued back to back and
  // timed until the stream has run them all.
  auto phase = [&](auto&& call) -> StatusOr<double> {
    for (int i = 0; i < 2; ++i) call();
    TACT_RETURN_IF_ERROR(device->Synchronize());
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < o.reps; ++i) call();
    TACT_RETURN_IF_ERROR(device->Synchronize());
    TACT_RETURN_IF_ERROR(status);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / o.reps;
  };
  const double flops = 2.0 * static_cast<double>(n) * n * n;
  MatmulBenchResult r;
  r.options = o;
  for (int run = 0; run < o.runs; ++run) {
    TACT_ASSIGN_OR_RETURN(double kernel_s, phase(run_kernel));
    TACT_ASSIGN_OR_RETURN(double direct_s, phase(direct));
    r.gflops.push_back(flops / kernel_s / 1e9);
    r.blas_direct_gflops.push_back(flops / direct_s / 1e9);
    r.ratio.push_back(r.gflops.back() / r.blas_direct_gflops.back());
  }
  TACT_ASSIGN_OR_RETURN(std::vector<float> p, ToHostFloats(device.get(), product));
  TACT_ASSIGN_OR_RETURN(std::vector<float> c, ToHostFloats(device.get(), direct_out));
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != c[i]) {
      return errors::Internal("the MatMul kernel and cublasGemmEx differ at element ", i, ": ", p[i], " vs ",
                              c[i]);
    }
  }
  return r;
}

}  // namespace tact::apps

#else  // no CUDA in this build

namespace tact::apps {

StatusOr<MatmulBenchResult> BenchMatmulGpu(const MatmulBenchOptions&) {
  return errors::Unavailable("this tact was built without CUDA (TACT_CUDA=OFF or no nvcc): no GPU benchmark");
}

}  // namespace tact::apps

#endif
