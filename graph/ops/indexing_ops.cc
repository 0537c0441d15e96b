#include "graph/ops/indexing_ops.h"

#include <optional>
#include <vector>

#include "graph/op_registry.h"

namespace tact {
namespace {

#define TACT_INDEXING_NUMBERS \
  "half, bfloat16, float, double, int32, int64, complex64, complex128, uint8, int8, int16"

Status RequireIndexVectors(const PartialTensorShape& indices) {
  if (!indices.unknown_rank() && indices.dims() == 0) {
    return errors::InvalidArgument("indices must be at least a vector (its last dimension holds "
                                   "the coordinates), got a scalar");
  }
  return Status::OK();
}

// indices.shape[:-1] + shape[k:] where both ranks and k, indices' last
// dimension, are known (k at most shape's rank); else nullopt.
StatusOr<std::optional<PartialTensorShape>> SlicesShape(const PartialTensorShape& indices,
                                                       const PartialTensorShape& shape,
                                                       const char* shape_name) {
  TACT_RETURN_IF_ERROR(RequireIndexVectors(indices));
  if (indices.unknown_rank() || shape.unknown_rank()) return std::optional<PartialTensorShape>();
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k < 0) return std::optional<PartialTensorShape>();
  if (k > shape.dims()) {
    return errors::InvalidArgument("indices ", indices.DebugString(), " hold ", k,
                                   " coordinates, more than ", shape_name, " ", shape.DebugString(),
                                   " has dimensions");
  }
  std::vector<int64_t> dims(indices.dim_sizes().begin(), indices.dim_sizes().end() - 1);
  dims.insert(dims.end(), shape.dim_sizes().begin() + k, shape.dim_sizes().end());
  return std::optional<PartialTensorShape>(PartialTensorShape(dims));
}

Status GatherNdShape(InferenceContext* c) {
  TACT_ASSIGN_OR_RETURN(std::optional<PartialTensorShape> out,
                        SlicesShape(c->input(1), c->input(0), "params"));
  if (out) c->set_output(0, *out);
  return Status::OK();
}

// The output is `shape`; updates must be the slices the indices pick of it.
Status ScatterNdShape(InferenceContext* c) {
  TACT_RETURN_IF_ERROR(shape_fn::ShapeFromInput(c, 2, 0, "shape"));
  TACT_ASSIGN_OR_RETURN(std::optional<PartialTensorShape> want,
                        SlicesShape(c->input(0), c->output(0), "shape"));
  if (want && !want->IsCompatibleWith(c->input(1))) {
    return errors::InvalidArgument("updates have shape ", c->input(1).DebugString(), " but indices ",
                                   c->input(0).DebugString(), " into shape ",
                                   c->output(0).DebugString(), " pick slices of shape ",
                                   want->DebugString());
  }
  return Status::OK();
}

Status WhereShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  c->set_output(0, PartialTensorShape({-1, x.unknown_rank() ? -1 : x.dims()}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("GatherNd").Input("params: Tparams").Input("indices: Tindices")
    .Output("output: Tparams").Attr("Tparams: type").Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherNdShape);
REGISTER_OP("ScatterNd").Input("indices: Tindices").Input("updates: T").Input("shape: Tindices")
    .Output("output: T").Attr("T: {" TACT_INDEXING_NUMBERS "}").Attr("Tindices: {int32, int64}")
    .SetShapeFn(ScatterNdShape);
REGISTER_OP("Where").Input("input: T").Output("index: int64")
    .Attr("T: {bool, " TACT_INDEXING_NUMBERS "} = bool").SetShapeFn(WhereShape);

Output GatherNd(const Scope& scope, Input params, Input indices) {
  return OpBuilder(scope, "GatherNd").Input(params).Input(indices).FinalizeOutput();
}

Output ScatterNd(const Scope& scope, Input indices, Input updates, Input shape) {
  return OpBuilder(scope, "ScatterNd").Input(indices).Input(updates).Input(shape).FinalizeOutput();
}

Output Where(const Scope& scope, Input condition) {
  return OpBuilder(scope, "Where").Input(condition).FinalizeOutput();
}

}  // namespace tact
