// Slice: the block of `input` that starts at `begin` and spans `size`
// (-1: to the end of that dimension). A strided copy with unit steps.
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    for (int i : {1, 2}) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.dims() == 1 && t.dim_size(0) == rank,
                  errors::InvalidArgument(i == 1 ? "begin" : "size", " must be a vector of ",
                                          rank, " elements for input of shape ",
                                          in.shape().DebugString(), ", got shape ",
                                          t.shape().DebugString()));
    }
    StatusOr<std::vector<int64_t>> begin = ReadIntVector(ctx->input(1), "begin");
    OP_REQUIRES_OK(ctx, begin.status());
    StatusOr<std::vector<int64_t>> size = ReadIntVector(ctx->input(2), "size");
    OP_REQUIRES_OK(ctx, size.status());
    std::vector<int64_t> out_dims(rank);
    int64_t base = 0;
    const std::vector<int64_t> strides = RowMajorStrides(in.shape().dim_sizes());
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = in.dim_size(d), b = (*begin)[d];
      // b is checked before dim - b is computed: a huge negative b would overflow.
      const bool begin_ok = b >= 0 && b <= dim;
      const int64_t s = !begin_ok ? 0 : (*size)[d] == -1 ? dim - b : (*size)[d];
      OP_REQUIRES(ctx, begin_ok && s >= 0 && s <= dim - b,
                  errors::InvalidArgument("slice of dimension ", d, " is out of range: begin ",
                                          IntListString(*begin), ", size ", IntListString(*size),
                                          " for input of shape ", in.shape().DebugString()));
      out_dims[d] = s;
      base += b * strides[d];
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, in, base, out_dims, strides, out));
  }
};

REGISTER_KERNEL_BUILDER(Name("Slice").Device(DEVICE_CPU), SliceOp);

}  // namespace
}  // namespace tact
