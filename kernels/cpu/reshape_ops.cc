// Reshape, ExpandDims and Squeeze: new shapes for the same elements. None
// copies: the output shares the input's buffer (Tensor::Reshaped), so they
// run inline.
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// The shape `requested` (one entry may be -1) asks for, given `num_elements`.
StatusOr<TensorShape> ResolveReshape(const TensorShape& in, const std::vector<int64_t>& requested) {
  int unknown = -1;
  int64_t product = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t d = requested[i];
    if (d == -1) {
      if (unknown >= 0) {
        return errors::InvalidArgument("shape ", IntListString(requested),
                                       " has more than one -1 (at ", unknown, " and ", i, ")");
      }
      unknown = static_cast<int>(i);
      continue;
    }
    if (d < -1) {
      return errors::InvalidArgument("shape ", IntListString(requested), " has size ", d,
                                     " at ", i, "; sizes must be >= -1");
    }
    if (__builtin_mul_overflow(product, d, &product)) {
      return errors::InvalidArgument("shape ", IntListString(requested), " has too many elements");
    }
  }
  std::vector<int64_t> dims = requested;
  const int64_t n = in.num_elements();
  if (unknown >= 0) {
    if (product == 0) {
      return errors::InvalidArgument("cannot infer the -1 in shape ", IntListString(requested),
                                     " for a tensor of shape ", in.DebugString(),
                                     ": the other sizes multiply to 0");
    }
    dims[unknown] = n / product;
    product *= dims[unknown];
  }
  if (product != n) {
    return errors::InvalidArgument("cannot reshape a tensor of ", n, " elements ",
                                   in.DebugString(), " to shape ", IntListString(requested),
                                   " (", product, " elements)");
  }
  return TensorShape(dims);
}

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& shape = ctx->input(1);
    OP_REQUIRES(ctx, shape.dims() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        shape.shape().DebugString()));
    StatusOr<std::vector<int64_t>> requested = ReadIntVector(shape, "shape");
    OP_REQUIRES_OK(ctx, requested.status());
    StatusOr<TensorShape> out_shape = ResolveReshape(in.shape(), *requested);
    OP_REQUIRES_OK(ctx, out_shape.status());
    StatusOr<Tensor> out = in.Reshaped(*out_shape);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, std::move(out).value());
  }
  bool IsExpensive() const override { return false; }
};

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    StatusOr<std::vector<int64_t>> dim = ReadIntVector(ctx->input(1), "dim");
    OP_REQUIRES_OK(ctx, dim.status());
    OP_REQUIRES(ctx, dim->size() == 1,
                errors::InvalidArgument("dim must hold one value, got shape ",
                                        ctx->input(1).shape().DebugString()));
    // The new axis may go anywhere in [0, rank]: one more place than an axis.
    StatusOr<int> axis = NormalizeAxis((*dim)[0], in.dims() + 1, "dim");
    OP_REQUIRES_OK(ctx, axis.status());
    TensorShape shape = in.shape();
    shape.InsertDim(*axis, 1);
    ctx->set_output(0, in.Reshaped(shape).value());
  }
  bool IsExpensive() const override { return false; }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    std::vector<bool> remove(rank, false);
    for (int64_t d : squeeze_dims_) {
      StatusOr<int> axis = NormalizeAxis(d, rank, "squeeze dimension");
      OP_REQUIRES_OK(ctx, axis.status());
      OP_REQUIRES(ctx, in.dim_size(*axis) == 1,
                  errors::InvalidArgument("cannot squeeze dimension ", d, " of shape ",
                                          in.shape().DebugString(), ": its size is ",
                                          in.dim_size(*axis), ", not 1"));
      remove[*axis] = true;
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      const bool drop = squeeze_dims_.empty() ? in.dim_size(i) == 1 : remove[i];
      if (!drop) shape.AddDim(in.dim_size(i));
    }
    ctx->set_output(0, in.Reshaped(shape).value());
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> squeeze_dims_;
};

REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_CPU), ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_CPU), SqueezeOp);
// On a GPU device the data stays where it is (these only re-shape its
// buffer) and the shape or dim argument, int32, is in host memory
// (gpu::KeptInHostMemory), which this host code reads.
REGISTER_KERNEL_BUILDER(Name("Reshape").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tshape"), ReshapeOp);
REGISTER_KERNEL_BUILDER(Name("ExpandDims").Device(DEVICE_GPU).TypeConstraint<int32_t>("Tdim"), ExpandDimsOp);
REGISTER_KERNEL_BUILDER(Name("Squeeze").Device(DEVICE_GPU), SqueezeOp);

}  // namespace
}  // namespace tact
