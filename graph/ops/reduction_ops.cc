#include "graph/ops/reduction_ops.h"

#include <vector>

#include "graph/op_registry.h"

namespace tact {
namespace {

// The elements of a constant int32/int64 scalar or vector, for shape
// functions (the kernels read theirs with ReadIntVector).
StatusOr<std::vector<int64_t>> ConstIntVector(const Tensor& t, const char* what) {
  if (t.dims() > 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return errors::InvalidArgument(what, " must be an int32 or int64 scalar or vector, got ",
                                   DataTypeString(t.dtype()), " ", t.shape().DebugString());
  }
  std::vector<int64_t> out(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out[i] = t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return out;
}

// Marks the reduced dimensions of a rank-`rank` input; the same rules as
// the kernels (out of range and duplicates are errors).
StatusOr<std::vector<bool>> ReducedDims(const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("reduction axis ", a, " is out of range for an input of rank ",
                                     rank, " (expected [", -rank, ", ", rank, "))");
    }
    const int d = static_cast<int>(a < 0 ? a + rank : a);
    if (reduced[d]) return errors::InvalidArgument("reduction axis ", a, " is given twice");
    reduced[d] = true;
  }
  return reduced;
}

Status ReductionShape(InferenceContext* c) {
  bool keep_dims = false;
  TACT_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const PartialTensorShape& in = c->input(0);
  const Tensor* axes_tensor = c->input_tensor(1);
  if (axes_tensor == nullptr) {
    // Without the axes only keep_dims tells the rank; an axis vector known
    // to be empty reduces nothing.
    if (c->input(1).dims() == 1 && c->input(1).dim_size(0) == 0) {
      c->set_output(0, in);
    } else if (keep_dims && !in.unknown_rank()) {
      c->set_output(0, PartialTensorShape(std::vector<int64_t>(in.dims(), -1)));
    }
    return Status::OK();
  }
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> axes,
                        ConstIntVector(*axes_tensor, "reduction_indices"));
  if (in.unknown_rank()) return Status::OK();
  TACT_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedDims(axes, in.dims()));
  std::vector<int64_t> out;
  for (int d = 0; d < in.dims(); ++d) {
    if (!reduced[d]) {
      out.push_back(in.dim_size(d));
    } else if (keep_dims) {
      out.push_back(1);
    }
  }
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

Status ArgReductionShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (c->input(1).dims() > 0) {
    return errors::InvalidArgument("dimension must be a scalar, got shape ",
                                   c->input(1).DebugString());
  }
  if (in.unknown_rank()) return Status::OK();
  const Tensor* dim_tensor = c->input_tensor(1);
  if (dim_tensor == nullptr) {
    if (in.dims() > 0) {
      c->set_output(0, PartialTensorShape(std::vector<int64_t>(in.dims() - 1, -1)));
    }
    return Status::OK();
  }
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> dim, ConstIntVector(*dim_tensor, "dimension"));
  if (dim.size() != 1 || dim[0] < -in.dims() || dim[0] >= in.dims()) {
    return errors::InvalidArgument("dimension ", dim_tensor->DebugString(),
                                   " is out of range for an input of shape ", in.DebugString());
  }
  const int axis = static_cast<int>(dim[0] < 0 ? dim[0] + in.dims() : dim[0]);
  std::vector<int64_t> out = in.dim_sizes();
  out.erase(out.begin() + axis);
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

// data's shape begins with segment_ids'; the output is [num_segments]
// followed by the rest of data's shape.
Status UnsortedSegmentSumShape(InferenceContext* c) {
  const PartialTensorShape& data = c->input(0);
  const PartialTensorShape& ids = c->input(1);
  if (c->input(2).dims() > 0) {
    return errors::InvalidArgument("num_segments must be a scalar, got shape ",
                                   c->input(2).DebugString());
  }
  if (data.unknown_rank() || ids.unknown_rank()) return Status::OK();
  bool prefix = data.dims() >= ids.dims();
  for (int d = 0; prefix && d < ids.dims(); ++d) {
    const int64_t a = data.dim_size(d), b = ids.dim_size(d);
    prefix = a < 0 || b < 0 || a == b;
  }
  if (!prefix) {
    return errors::InvalidArgument("data's shape ", data.DebugString(),
                                   " must begin with segment_ids' shape ", ids.DebugString());
  }
  int64_t segments = -1;
  if (const Tensor* n = c->input_tensor(2)) {
    TACT_ASSIGN_OR_RETURN(std::vector<int64_t> v, ConstIntVector(*n, "num_segments"));
    if (v.size() == 1) segments = v[0];
  }
  if (segments < -1) return errors::InvalidArgument("num_segments is negative: ", segments);
  std::vector<int64_t> dims = {segments};
  dims.insert(dims.end(), data.dim_sizes().begin() + ids.dims(), data.dim_sizes().end());
  c->set_output(0, PartialTensorShape(dims));
  return Status::OK();
}

#define TACT_NUMBER_TYPES \
  "{float, double, int32, int64, uint8, int16, int8, half, bfloat16, complex64, complex128}"
#define TACT_REAL_TYPES "{float, double, int32, int64, uint8, int16, int8, half, bfloat16}"
#define TACT_REGISTER_REDUCTION(NAME, TYPES)                                                  \
  REGISTER_OP(NAME)                                                                           \
      .Input("input: T").Input("reduction_indices: Tidx").Output("output: T")                 \
      .Attr("keep_dims: bool = false").Attr("T: " TYPES).Attr("Tidx: {int32, int64} = int32") \
      .SetShapeFn(ReductionShape)

TACT_REGISTER_REDUCTION("Sum", TACT_NUMBER_TYPES);
TACT_REGISTER_REDUCTION("Mean", TACT_NUMBER_TYPES);
TACT_REGISTER_REDUCTION("Prod", TACT_NUMBER_TYPES);
TACT_REGISTER_REDUCTION("Max", TACT_REAL_TYPES);
TACT_REGISTER_REDUCTION("Min", TACT_REAL_TYPES);
#undef TACT_REGISTER_REDUCTION
#define TACT_REGISTER_LOGICAL_REDUCTION(NAME)                                                 \
  REGISTER_OP(NAME)                                                                         \
      .Input("input: bool").Input("reduction_indices: Tidx").Output("output: bool")         \
      .Attr("keep_dims: bool = false").Attr("Tidx: {int32, int64} = int32")                 \
      .SetShapeFn(ReductionShape)
TACT_REGISTER_LOGICAL_REDUCTION("All");
TACT_REGISTER_LOGICAL_REDUCTION("Any");
#undef TACT_REGISTER_LOGICAL_REDUCTION

REGISTER_OP("ArgMax")
    .Input("input: T").Input("dimension: Tidx").Output("output: output_type")
    .Attr("T: " TACT_REAL_TYPES).Attr("Tidx: {int32, int64} = int32")
    .Attr("output_type: {int32, int64} = int64").SetShapeFn(ArgReductionShape);
REGISTER_OP("ArgMin")
    .Input("input: T").Input("dimension: Tidx").Output("output: output_type")
    .Attr("T: " TACT_REAL_TYPES).Attr("Tidx: {int32, int64} = int32")
    .Attr("output_type: {int32, int64} = int64").SetShapeFn(ArgReductionShape);
REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T").Input("segment_ids: Tindices").Input("num_segments: Tnumsegments")
    .Output("output: T").Attr("T: " TACT_NUMBER_TYPES).Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32").SetShapeFn(UnsortedSegmentSumShape);
#undef TACT_NUMBER_TYPES
#undef TACT_REAL_TYPES

Output Reduction(const Scope& scope, const char* op, Input input, Input axis, bool keep_dims) {
  return OpBuilder(scope, op).Input(input).Input(axis).Attr("keep_dims", keep_dims)
      .FinalizeOutput();
}

}  // namespace

Output Sum(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Sum", input, axis, keep_dims);
}
Output Mean(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Mean", input, axis, keep_dims);
}
Output Max(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Max", input, axis, keep_dims);
}
Output Min(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Min", input, axis, keep_dims);
}
Output Prod(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Prod", input, axis, keep_dims);
}

Output All(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "All", input, axis, keep_dims);
}
Output Any(const Scope& scope, Input input, Input axis, bool keep_dims) {
  return Reduction(scope, "Any", input, axis, keep_dims);
}

Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids, Input num_segments) {
  return OpBuilder(scope, "UnsortedSegmentSum").Input(data).Input(segment_ids)
      .Input(num_segments).FinalizeOutput();
}

Output ArgMax(const Scope& scope, Input input, Input dimension, DataType output_type) {
  return OpBuilder(scope, "ArgMax").Input(input).Input(dimension)
      .Attr("output_type", output_type).FinalizeOutput();
}
Output ArgMin(const Scope& scope, Input input, Input dimension, DataType output_type) {
  return OpBuilder(scope, "ArgMin").Input(input).Input(dimension)
      .Attr("output_type", output_type).FinalizeOutput();
}

}  // namespace tact
