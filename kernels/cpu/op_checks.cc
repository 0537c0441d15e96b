#include "kernels/cpu/op_checks.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_util.h"

namespace tact {

void ReadNhwcFormat(OpKernelConstruction* ctx) {
  std::string format;
  OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
  OP_REQUIRES(ctx, format == "NHWC",
              errors::InvalidArgument("data_format '", format, "' is not supported on ",
                                      ctx->device()->device_type(), "; use 'NHWC'"));
}

Status CheckBiasAdd(const Tensor& value, const Tensor& bias) {
  if (value.dims() >= 1 && bias.dims() == 1 && value.dim_size(value.dims() - 1) == bias.dim_size(0)) {
    return Status::OK();
  }
  return errors::InvalidArgument(
      "BiasAdd: bias must be a vector the size of value's last dimension, got value ",
      value.shape().DebugString(), " and bias ", bias.shape().DebugString());
}

Status CheckBiasAddGrad(const Tensor& out_backprop) {
  if (out_backprop.dims() >= 1) return Status::OK();
  return errors::InvalidArgument("BiasAddGrad: out_backprop must be at least rank 1, got shape ",
                                 out_backprop.shape().DebugString());
}

StatusOr<TensorShape> FillShape(const Tensor& dims, const Tensor& value) {
  if (dims.dims() != 1) {
    return errors::InvalidArgument("dims must be a vector, got shape ", dims.shape().DebugString());
  }
  if (value.dims() != 0) {
    return errors::InvalidArgument("value must be a scalar, got shape ", value.shape().DebugString());
  }
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIntVector(dims, "dims"));
  return TensorShape::FromDims(sizes);
}

StatusOr<MatrixProductDims> BatchMatMulDims(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y) {
  if (x.dims() < 2 || y.dims() < 2) {
    return errors::InvalidArgument("BatchMatMul needs inputs of rank >= 2, got shapes ",
                                   x.shape().DebugString(), " and ", y.shape().DebugString());
  }
  const int rx = x.dims(), ry = y.dims();
  MatrixProductDims d;
  d.m = x.dim_size(adj_x ? rx - 1 : rx - 2);
  d.k = x.dim_size(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim_size(adj_y ? ry - 1 : ry - 2);
  d.n = y.dim_size(adj_y ? ry - 2 : ry - 1);
  if (d.k != ky) {
    return errors::InvalidArgument("BatchMatMul: inner dimensions differ (", d.k, " vs ", ky, ") for shapes ",
                                   x.shape().DebugString(), " and ", y.shape().DebugString());
  }
  if (d.m > INT_MAX || d.n > INT_MAX || d.k > INT_MAX) {
    return errors::InvalidArgument("BatchMatMul: matrix dimensions of ", x.shape().DebugString(), " and ",
                                   y.shape().DebugString(), " exceed 2^31-1, which BLAS cannot take");
  }
  return d;
}

StatusOr<std::vector<int64_t>> BatchMatMulBatchDims(const TensorShape& x, const TensorShape& y) {
  const int rx = x.dims() - 2, ry = y.dims() - 2;
  const int r = std::max(rx, ry);
  std::vector<int64_t> dims(r);
  for (int i = 0; i < r; ++i) {
    const int64_t dx = i < r - rx ? 1 : x.dim_size(i - (r - rx));
    const int64_t dy = i < r - ry ? 1 : y.dim_size(i - (r - ry));
    if (dx != dy && dx != 1 && dy != 1) {
      return errors::InvalidArgument("BatchMatMul: batch dimensions of ", x.DebugString(), " and ",
                                     y.DebugString(), " do not broadcast");
    }
    dims[i] = dx == 1 ? dy : dx;
  }
  return dims;
}

}  // namespace tact
