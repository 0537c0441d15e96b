#include "graph/ops/fill_ops.h"

#include <cmath>
#include <vector>

#include "graph/op_registry.h"

namespace tact {
namespace {

Status RequireScalar(InferenceContext* c, int index, const char* what) {
  if (c->input(index).dims() > 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   c->input(index).DebugString());
  }
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  TACT_RETURN_IF_ERROR(RequireScalar(c, 1, "value"));
  return shape_fn::ShapeFromInput(c, 0, 0, "dims");
}

// The Range size from constant inputs of any supported type.
StatusOr<int64_t> ConstRangeSize(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (start.dims() != 0 || limit.dims() != 0 || delta.dims() != 0 ||
      limit.dtype() != start.dtype() || delta.dtype() != start.dtype()) {
    return errors::InvalidArgument("start, limit and delta must be scalars of one type, got ",
                                   start.DebugString(), ", ", limit.DebugString(), ", ",
                                   delta.DebugString());
  }
  switch (start.dtype()) {
    case DT_INT32:
      return RangeSize(int64_t{start.scalar<int32_t>()}, int64_t{limit.scalar<int32_t>()},
                       int64_t{delta.scalar<int32_t>()});
    case DT_INT64:
      return RangeSize(start.scalar<int64_t>(), limit.scalar<int64_t>(), delta.scalar<int64_t>());
    case DT_FLOAT:
      return RangeSize(double{start.scalar<float>()}, double{limit.scalar<float>()},
                       double{delta.scalar<float>()});
    case DT_DOUBLE:
      return RangeSize(start.scalar<double>(), limit.scalar<double>(), delta.scalar<double>());
    default:
      return int64_t{-1};  // a type without a kernel: leave the size unknown
  }
}

Status RangeShape(InferenceContext* c) {
  TACT_RETURN_IF_ERROR(RequireScalar(c, 0, "start"));
  TACT_RETURN_IF_ERROR(RequireScalar(c, 1, "limit"));
  TACT_RETURN_IF_ERROR(RequireScalar(c, 2, "delta"));
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  int64_t size = -1;
  if (start != nullptr && limit != nullptr && delta != nullptr) {
    TACT_ASSIGN_OR_RETURN(size, ConstRangeSize(*start, *limit, *delta));
  }
  c->set_output(0, PartialTensorShape({size}));
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  int64_t axis = -1;
  TACT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TACT_RETURN_IF_ERROR(RequireScalar(c, 1, "depth"));
  TACT_RETURN_IF_ERROR(RequireScalar(c, 2, "on_value"));
  TACT_RETURN_IF_ERROR(RequireScalar(c, 3, "off_value"));
  const PartialTensorShape& indices = c->input(0);
  if (axis < -1 || (!indices.unknown_rank() && axis > indices.dims())) {
    return errors::InvalidArgument("axis must be -1 or in [0, ", indices.dims(), "], got ", axis);
  }
  if (indices.unknown_rank()) return Status::OK();
  int64_t depth = -1;
  if (const Tensor* d = c->input_tensor(1); d != nullptr && d->dtype() == DT_INT32 && d->dims() == 0) {
    depth = d->scalar<int32_t>();
    if (depth < 0) return errors::InvalidArgument("depth must be non-negative, got ", depth);
  }
  std::vector<int64_t> out = indices.dim_sizes();
  out.insert(axis == -1 ? out.end() : out.begin() + axis, depth);
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Fill").Input("dims: index_type").Input("value: T").Output("output: T")
    .Attr("T: type").Attr("index_type: {int32, int64} = int32").SetShapeFn(FillShape);
REGISTER_OP("ZerosLike").Input("x: T").Output("y: T").Attr("T: type")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("OnesLike").Input("x: T").Output("y: T")
    .Attr("T: {float, double, int32, int64, uint8, int16, int8, half, bfloat16, complex64, "
          "complex128, bool}")
    .SetShapeFn(shape_fn::UnchangedShape);
REGISTER_OP("Range").Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64} = int32")
    .SetShapeFn(RangeShape);
REGISTER_OP("OneHot").Input("indices: TI").Input("depth: int32").Input("on_value: T")
    .Input("off_value: T").Output("output: T").Attr("axis: int = -1").Attr("T: type")
    .Attr("TI: {uint8, int32, int64} = int64").SetShapeFn(OneHotShape);

StatusOr<int64_t> RangeSize(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) return errors::InvalidArgument("Range requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument("Range requires start <= limit when delta > 0, got start ",
                                   start, " and limit ", limit);
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument("Range requires start >= limit when delta < 0, got start ",
                                   start, " and limit ", limit);
  }
  // 128 bits: limit - start overflows int64 for extreme int64 bounds.
  __int128 span = static_cast<__int128>(limit) - start;
  __int128 step = delta;
  if (span < 0) span = -span;
  if (step < 0) step = -step;
  const __int128 size = (span + step - 1) / step;
  if (size > INT64_MAX) return errors::InvalidArgument("Range has too many elements");
  return static_cast<int64_t>(size);
}

StatusOr<int64_t> RangeSize(double start, double limit, double delta) {
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
    return errors::InvalidArgument("Range requires finite start, limit and delta, got ", start,
                                   ", ", limit, ", ", delta);
  }
  if (delta == 0) return errors::InvalidArgument("Range requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument("Range requires start <= limit when delta > 0, got start ",
                                   start, " and limit ", limit);
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument("Range requires start >= limit when delta < 0, got start ",
                                   start, " and limit ", limit);
  }
  const double size = std::ceil(std::abs((limit - start) / delta));
  // 2^62: far beyond any allocation, and safe to convert.
  if (!(size < 4.611686018427388e18)) {
    return errors::InvalidArgument("Range has too many elements: ", size);
  }
  return static_cast<int64_t>(size);
}

Output Fill(const Scope& scope, Input dims, Input value) {
  return OpBuilder(scope, "Fill").Input(dims).Input(value).FinalizeOutput();
}
Output ZerosLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "ZerosLike").Input(x).FinalizeOutput();
}
Output OnesLike(const Scope& scope, Input x) {
  return OpBuilder(scope, "OnesLike").Input(x).FinalizeOutput();
}
Output Range(const Scope& scope, Input start, Input limit, Input delta) {
  return OpBuilder(scope, "Range").Input(start).Input(limit).Input(delta).FinalizeOutput();
}
Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value, Input off_value,
              int64_t axis) {
  return OpBuilder(scope, "OneHot").Input(indices).Input(depth).Input(on_value)
      .Input(off_value).Attr("axis", axis).FinalizeOutput();
}

}  // namespace tact
