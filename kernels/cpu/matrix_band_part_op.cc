// MatrixBandPart: each matrix (the last two dimensions) with the elements
// outside a band set to zero ("" for strings, false for bools). Elements
// are moved, never computed on: one instantiation per element size.
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() >= 2,
                errors::InvalidArgument("input must be at least a matrix, got shape ",
                                        in.shape().DebugString()));
    const int64_t rows = in.dim_size(in.dims() - 2), cols = in.dim_size(in.dims() - 1);
    int64_t bounds[2];
    const char* names[2] = {"num_lower", "num_upper"};
    const int64_t limits[2] = {rows, cols};
    for (int b = 0; b < 2; ++b) {
      const Tensor& bound = ctx->input(1 + b);
      OP_REQUIRES(ctx, bound.dims() == 0,
                  errors::InvalidArgument(names[b], " must be a scalar, got shape ",
                                          bound.shape().DebugString()));
      bounds[b] = ReadIndices(bound)[0];
      OP_REQUIRES(ctx, bounds[b] <= limits[b],
                  errors::InvalidArgument(names[b], " = ", bounds[b],
                                          " must be negative or at most the matrices' ",
                                          b == 0 ? "row" : "column", " count ", limits[b]));
    }
    const int64_t lower = bounds[0], upper = bounds[1];
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES(ctx, VisitByElementSize(in.dtype(), [&]<typename U>() {
                  const U* src = static_cast<const U*>(in.raw_data());
                  U* dst = static_cast<U*>(out->raw_data());
                  // One unit is one row of one matrix.
                  ParallelFor(ctx, out->NumElements() / cols, cols, [&](int64_t begin, int64_t end) {
                    for (int64_t r = begin; r < end; ++r) {
                      const int64_t i = r % rows;
                      for (int64_t j = 0; j < cols; ++j) {
                        const bool keep = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
                        dst[r * cols + j] = keep ? src[r * cols + j] : U{};
                      }
                    }
                  });
                }),
                UnsupportedDtype(in.dtype()));
  }
};

REGISTER_KERNEL_BUILDER(Name("MatrixBandPart").Device(DEVICE_CPU), MatrixBandPartOp);

}  // namespace
}  // namespace tact
