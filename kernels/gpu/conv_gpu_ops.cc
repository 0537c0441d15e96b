// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on a GPU device,
// through cuDNN, NHWC as on the CPU.
//
// Two gaps between TensorFlow's conventions and cuDNN's are bridged here:
// - The filter is HWIO; cuDNN's NHWC filter is OHWI. It is converted with
//   cudnnTransformTensor into scratch (and the filter gradient back).
// - SAME padding may put one more row or column after than before; cuDNN
//   pads symmetrically. Then the input is copied into a buffer one row or
//   column larger, zero at the end, and cuDNN pads the rest symmetrically
//   (the gradient of the input is computed for that buffer and cropped).
//
// Math is strict fp32 (CUDNN_FMA_MATH, no TF32), so results agree with the
// CPU kernels to float rounding.
#include <cuda_runtime.h>

#include "kernels/cpu/conv_util.h"
#include "kernels/gpu/cudnn_util.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact::gpu {
namespace {

// cuDNN may use this much scratch per convolution; algorithms wanting more
// are passed over.
constexpr size_t kMaxWorkspace = size_t{1} << 30;

// Padding after the input beyond the symmetric pad_before (0 or 1).
int64_t ExtraPadding(int64_t in, int64_t out, int64_t stride, int64_t filter, int64_t dilation,
                     int64_t pad_before) {
  const int64_t total = std::max<int64_t>(0, (out - 1) * stride + (filter - 1) * dilation + 1 - in);
  return total - 2 * pad_before;
}

// Everything one convolution of `d` needs from cuDNN.
struct ConvSetup {
  int64_t extra_rows = 0, extra_cols = 0;
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
};

Status Setup(DataType dtype, const Conv2DDims& d, ConvSetup* s) {
  s->extra_rows =
      ExtraPadding(d.in_rows, d.out_rows, d.stride_rows, d.filter_rows, d.dilation_rows, d.pad_rows);
  s->extra_cols =
      ExtraPadding(d.in_cols, d.out_cols, d.stride_cols, d.filter_cols, d.dilation_cols, d.pad_cols);
  TACT_RETURN_IF_ERROR(
      s->x.SetNhwc(dtype, d.batch, d.in_rows + s->extra_rows, d.in_cols + s->extra_cols, d.in_depth));
  TACT_RETURN_IF_ERROR(s->y.SetNhwc(dtype, d.batch, d.out_rows, d.out_cols, d.out_depth));
  TACT_RETURN_IF_ERROR(s->w.SetOhwi(dtype, d.out_depth, d.filter_rows, d.filter_cols, d.in_depth));
  TACT_RETURN_IF_ERROR(CudnnStatus(
      cudnnSetConvolution2dDescriptor(
          s->conv.get(), static_cast<int>(d.pad_rows), static_cast<int>(d.pad_cols),
          static_cast<int>(d.stride_rows), static_cast<int>(d.stride_cols), static_cast<int>(d.dilation_rows),
          static_cast<int>(d.dilation_cols), CUDNN_CROSS_CORRELATION, CudnnType(dtype)),
      "cudnnSetConvolution2dDescriptor"));
  return CudnnStatus(cudnnSetConvolutionMathType(s->conv.get(), CUDNN_FMA_MATH),
                     "cudnnSetConvolutionMathType");
}

// Filter [KH, KW, I, O] <-> [O, KH, KW, I], as cuDNN dims (n=O, c=I, h, w).
Status TransformFilter(GpuDevice* device, DataType dtype, const Conv2DDims& d, const void* src, void* dst,
                       bool to_ohwi) {
  const int64_t o = d.out_depth, i = d.in_depth, kh = d.filter_rows, kw = d.filter_cols;
  const int64_t dims[4] = {o, i, kh, kw};
  const int64_t hwio[4] = {1, o, kw * i * o, i * o};
  const int64_t ohwi[4] = {kh * kw * i, 1, kw * i, i};
  TensorDescriptor from, to;
  TACT_RETURN_IF_ERROR(from.SetStrided(dtype, dims, to_ohwi ? hwio : ohwi));
  TACT_RETURN_IF_ERROR(to.SetStrided(dtype, dims, to_ohwi ? ohwi : hwio));
  CudnnScales scales(dtype);
  return CudnnStatus(
      cudnnTransformTensor(device->cudnn(), scales.one(), from.get(), src, scales.zero(), to.get(), dst),
      "cudnnTransformTensor (filter layout)");
}

// Copies NHWC `src` [N, H, W, C] into the top-left of `dst` [N, H+er, W+ec, C]
// (to_larger), or back (!to_larger), with one 3D copy on the compute stream.
Status CopyPadded(GpuDevice* device, const Conv2DDims& d, int64_t er, int64_t ec, const void* src, void* dst,
                  size_t elem, bool to_larger) {
  const size_t row = static_cast<size_t>(d.in_cols * d.in_depth) * elem;
  const size_t big_row = static_cast<size_t>((d.in_cols + ec) * d.in_depth) * elem;
  const size_t rows = static_cast<size_t>(d.in_rows), big_rows = static_cast<size_t>(d.in_rows + er);
  cudaMemcpy3DParms p = {};
  cudaPitchedPtr small = make_cudaPitchedPtr(const_cast<void*>(to_larger ? src : dst), row, row, rows);
  cudaPitchedPtr big =
      make_cudaPitchedPtr(const_cast<void*>(to_larger ? dst : src), big_row, big_row, big_rows);
  p.srcPtr = to_larger ? small : big;
  p.dstPtr = to_larger ? big : small;
  p.extent = make_cudaExtent(row, rows, static_cast<size_t>(d.batch));
  p.kind = cudaMemcpyDeviceToDevice;
  return CudaStatus(cudaMemcpy3DAsync(&p, device->compute_stream()), "cudaMemcpy3DAsync (padding)");
}

// The first of cuDNN's ranked algorithms that can run here within the
// workspace cap and is deterministic. Some backward algorithms add with
// atomics, in whatever order the threads come; a step must reproduce bit
// for bit (a recovered run ends with the fault-free run's variables).
template <typename Perf>
StatusOr<Perf> Usable(const Perf* perf, int found, const char* what) {
  for (int i = 0; i < found; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kMaxWorkspace &&
        perf[i].determinism == CUDNN_DETERMINISTIC) {
      return perf[i];
    }
  }
  return errors::Internal("cuDNN offers no deterministic ", what, " algorithm for this convolution");
}

StatusOr<Tensor> Workspace(OpKernelContext* ctx, size_t bytes) {
  Tensor t;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(DT_UINT8, TensorShape({static_cast<int64_t>(bytes)}), &t));
  return t;
}

Status ZeroFill(GpuDevice* device, Tensor* t) {
  return CudaStatus(cudaMemsetAsync(t->raw_data(), 0, t->TotalBytes(), device->compute_stream()),
                    "cudaMemsetAsync");
}

bool Empty(const Conv2DDims& d) {
  return d.batch == 0 || d.in_rows == 0 || d.in_cols == 0 || d.in_depth == 0 || d.out_depth == 0 ||
         d.out_rows == 0 || d.out_cols == 0;
}

// The input as cuDNN reads it: `input` itself, or a padded copy.
StatusOr<Tensor> PaddedInput(OpKernelContext* ctx, GpuDevice* device, const Conv2DDims& d, const ConvSetup& s,
                             const Tensor& input) {
  if (s.extra_rows == 0 && s.extra_cols == 0) return input;
  Tensor padded;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(
      input.dtype(), TensorShape({d.batch, d.in_rows + s.extra_rows, d.in_cols + s.extra_cols, d.in_depth}),
      &padded));
  TACT_RETURN_IF_ERROR(ZeroFill(device, &padded));
  TACT_RETURN_IF_ERROR(CopyPadded(device, d, s.extra_rows, s.extra_cols, input.raw_data(), padded.raw_data(),
                                  DataTypeSize(input.dtype()), true));
  return padded;
}

StatusOr<Tensor> FilterOhwi(OpKernelContext* ctx, GpuDevice* device, const Conv2DDims& d,
                            const Tensor& filter) {
  Tensor ohwi;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(
      filter.dtype(), TensorShape({d.out_depth, d.filter_rows, d.filter_cols, d.in_depth}), &ohwi));
  TACT_RETURN_IF_ERROR(TransformFilter(device, filter.dtype(), d, filter.raw_data(), ohwi.raw_data(), true));
  return ohwi;
}

class ConvGpuBase : public OpKernel {
 public:
  explicit ConvGpuBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadConvAttrs(ctx, &attrs_));
  }

 protected:
  ConvAttrs attrs_;
};

class Conv2DGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    StatusOr<Conv2DDims> dims = ComputeConv2DDims(input.shape(), filter.shape(), attrs_);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({d.batch, d.out_rows, d.out_cols, d.out_depth}), &out));
    if (out->NumElements() == 0) return;
    if (Empty(d)) {
      OP_REQUIRES_OK(ctx, ZeroFill(device, out));
      return;
    }
    ConvSetup s;
    OP_REQUIRES_OK(ctx, Setup(input.dtype(), d, &s));
    StatusOr<Tensor> x = PaddedInput(ctx, device, d, s, input);
    OP_REQUIRES_OK(ctx, x.status());
    StatusOr<Tensor> w = FilterOhwi(ctx, device, d, filter);
    OP_REQUIRES_OK(ctx, w.status());
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnGetConvolutionForwardAlgorithm_v7(
                                        device->cudnn(), s.x.get(), s.w.get(), s.conv.get(), s.y.get(),
                                        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                                    "cudnnGetConvolutionForwardAlgorithm_v7"));
    auto pick = Usable(perf, found, "forward");
    OP_REQUIRES_OK(ctx, pick.status());
    StatusOr<Tensor> ws = Workspace(ctx, pick->memory);
    OP_REQUIRES_OK(ctx, ws.status());
    CudnnScales scales(input.dtype());
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnConvolutionForward(
                                        device->cudnn(), scales.one(), s.x.get(), x->raw_data(), s.w.get(),
                                        w->raw_data(), s.conv.get(), pick->algo, ws->raw_data(),
                                        pick->memory, scales.zero(), s.y.get(), out->raw_data()),
                                    "cudnnConvolutionForward"));
  }
};

class Conv2DBackpropInputGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kInput, false, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    if (out->NumElements() == 0) return;
    if (Empty(d)) {
      OP_REQUIRES_OK(ctx, ZeroFill(device, out));
      return;
    }
    ConvSetup s;
    OP_REQUIRES_OK(ctx, Setup(filter.dtype(), d, &s));
    StatusOr<Tensor> w = FilterOhwi(ctx, device, d, filter);
    OP_REQUIRES_OK(ctx, w.status());
    const bool padded = s.extra_rows != 0 || s.extra_cols != 0;
    Tensor dx = *out;
    if (padded) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(filter.dtype(),
                                             TensorShape({d.batch, d.in_rows + s.extra_rows,
                                                          d.in_cols + s.extra_cols, d.in_depth}),
                                             &dx));
    }
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int found = 0;
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                        device->cudnn(), s.w.get(), s.y.get(), s.conv.get(), s.x.get(),
                                        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
                                    "cudnnGetConvolutionBackwardDataAlgorithm_v7"));
    auto pick = Usable(perf, found, "backward-data");
    OP_REQUIRES_OK(ctx, pick.status());
    StatusOr<Tensor> ws = Workspace(ctx, pick->memory);
    OP_REQUIRES_OK(ctx, ws.status());
    CudnnScales scales(filter.dtype());
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnConvolutionBackwardData(
                                        device->cudnn(), scales.one(), s.w.get(), w->raw_data(), s.y.get(),
                                        dy.raw_data(), s.conv.get(), pick->algo, ws->raw_data(),
                                        pick->memory, scales.zero(), s.x.get(), dx.raw_data()),
                                    "cudnnConvolutionBackwardData"));
    if (padded) {
      OP_REQUIRES_OK(ctx, CopyPadded(device, d, s.extra_rows, s.extra_cols, dx.raw_data(), out->raw_data(),
                                     DataTypeSize(filter.dtype()), false));
    }
  }
};

class Conv2DBackpropFilterGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;
  void Compute(OpKernelContext* ctx) override {
    GpuDevice* device = KernelDevice(ctx);
    if (device == nullptr) return;
    Tensor* out = nullptr;
    StatusOr<Conv2DDims> dims = StartConvBackprop(ctx, attrs_, ConvBackprop::kFilter, false, &out);
    OP_REQUIRES_OK(ctx, dims.status());
    const Conv2DDims& d = *dims;
    const Tensor& input = ctx->input(0);
    const Tensor& dy = ctx->input(2);
    if (out->NumElements() == 0) return;
    if (Empty(d)) {
      OP_REQUIRES_OK(ctx, ZeroFill(device, out));
      return;
    }
    ConvSetup s;
    OP_REQUIRES_OK(ctx, Setup(input.dtype(), d, &s));
    StatusOr<Tensor> x = PaddedInput(ctx, device, d, s, input);
    OP_REQUIRES_OK(ctx, x.status());
    Tensor dw_ohwi;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(
                            input.dtype(),
                            TensorShape({d.out_depth, d.filter_rows, d.filter_cols, d.in_depth}), &dw_ohwi));
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int found = 0;
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                        device->cudnn(), s.x.get(), s.y.get(), s.conv.get(), s.w.get(),
                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
                                    "cudnnGetConvolutionBackwardFilterAlgorithm_v7"));
    auto pick = Usable(perf, found, "backward-filter");
    OP_REQUIRES_OK(ctx, pick.status());
    StatusOr<Tensor> ws = Workspace(ctx, pick->memory);
    OP_REQUIRES_OK(ctx, ws.status());
    CudnnScales scales(input.dtype());
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnConvolutionBackwardFilter(
                                        device->cudnn(), scales.one(), s.x.get(), x->raw_data(), s.y.get(),
                                        dy.raw_data(), s.conv.get(), pick->algo, ws->raw_data(),
                                        pick->memory, scales.zero(), s.w.get(), dw_ohwi.raw_data()),
                                    "cudnnConvolutionBackwardFilter"));
    OP_REQUIRES_OK(ctx,
                   TransformFilter(device, input.dtype(), d, dw_ohwi.raw_data(), out->raw_data(), false));
  }
};

#define TACT_REGISTER_GPU_CONV(T)                                                                 \
  REGISTER_KERNEL_BUILDER(Name("Conv2D").Device(DEVICE_GPU).TypeConstraint<T>("T"), Conv2DGpuOp); \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropInput").Device(DEVICE_GPU).TypeConstraint<T>("T"),  \
                          Conv2DBackpropInputGpuOp);                                              \
  REGISTER_KERNEL_BUILDER(Name("Conv2DBackpropFilter").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
                          Conv2DBackpropFilterGpuOp);
TACT_REGISTER_GPU_CONV(float)
TACT_REGISTER_GPU_CONV(double)
#undef TACT_REGISTER_GPU_CONV

}  // namespace
}  // namespace tact::gpu
