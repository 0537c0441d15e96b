#include "graph/ops/matmul_ops.h"

#include "graph/op_registry.h"

namespace tact {
namespace {

std::string ShapeString(const PartialTensorShape& s) { return s.DebugString(); }

// Merges two possibly unknown (-1) dims that must be equal.
Status MergeInnerDim(int64_t a, int64_t b, const PartialTensorShape& sa,
                     const PartialTensorShape& sb, const char* op) {
  if (a >= 0 && b >= 0 && a != b) {
    return errors::InvalidArgument(op, ": inner dimensions differ (", a, " vs ", b,
                                   ") for shapes ", ShapeString(sa), " and ", ShapeString(sb));
  }
  return Status::OK();
}

Status MatMulShape(InferenceContext* c) {
  const PartialTensorShape& a = c->input(0);
  const PartialTensorShape& b = c->input(1);
  if ((!a.unknown_rank() && a.dims() != 2) || (!b.unknown_rank() && b.dims() != 2)) {
    return errors::InvalidArgument("MatMul needs two matrices, got shapes ", ShapeString(a),
                                   " and ", ShapeString(b));
  }
  bool ta = false, tb = false;
  TACT_RETURN_IF_ERROR(c->GetAttr("transpose_a", &ta));
  TACT_RETURN_IF_ERROR(c->GetAttr("transpose_b", &tb));
  const int64_t m = a.unknown_rank() ? -1 : a.dim_size(ta ? 1 : 0);
  const int64_t ka = a.unknown_rank() ? -1 : a.dim_size(ta ? 0 : 1);
  const int64_t kb = b.unknown_rank() ? -1 : b.dim_size(tb ? 1 : 0);
  const int64_t n = b.unknown_rank() ? -1 : b.dim_size(tb ? 0 : 1);
  TACT_RETURN_IF_ERROR(MergeInnerDim(ka, kb, a, b, "MatMul"));
  c->set_output(0, PartialTensorShape({m, n}));
  return Status::OK();
}

Status BatchMatMulShape(InferenceContext* c) {
  const PartialTensorShape& x = c->input(0);
  const PartialTensorShape& y = c->input(1);
  if ((!x.unknown_rank() && x.dims() < 2) || (!y.unknown_rank() && y.dims() < 2)) {
    return errors::InvalidArgument("BatchMatMul needs inputs of rank >= 2, got shapes ",
                                   ShapeString(x), " and ", ShapeString(y));
  }
  if (x.unknown_rank() || y.unknown_rank()) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  bool adj_x = false, adj_y = false;
  TACT_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  TACT_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const int rx = x.dims(), ry = y.dims();
  const int64_t m = x.dim_size(adj_x ? rx - 1 : rx - 2);
  const int64_t kx = x.dim_size(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim_size(adj_y ? ry - 1 : ry - 2);
  const int64_t n = y.dim_size(adj_y ? ry - 2 : ry - 1);
  TACT_RETURN_IF_ERROR(MergeInnerDim(kx, ky, x, y, "BatchMatMul"));
  std::vector<int64_t> bx(x.dim_sizes().begin(), x.dim_sizes().end() - 2);
  std::vector<int64_t> by(y.dim_sizes().begin(), y.dim_sizes().end() - 2);
  StatusOr<PartialTensorShape> batch =
      BroadcastShapes(PartialTensorShape(bx), PartialTensorShape(by));
  if (!batch.ok()) {
    return errors::InvalidArgument("BatchMatMul: batch dimensions of ", ShapeString(x), " and ",
                                   ShapeString(y), " do not broadcast");
  }
  std::vector<int64_t> out = batch->dim_sizes();
  out.push_back(m);
  out.push_back(n);
  c->set_output(0, PartialTensorShape(out));
  return Status::OK();
}

}  // namespace

REGISTER_OP("MatMul").Input("a: T").Input("b: T").Output("product: T")
    .Attr("transpose_a: bool = false").Attr("transpose_b: bool = false")
    .Attr("T: {half, bfloat16, float, double, int32, int64, complex64, complex128}")
    .SetShapeFn(MatMulShape);
REGISTER_OP("BatchMatMul").Input("x: T").Input("y: T").Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32, int64, complex64, complex128}")
    .Attr("adj_x: bool = false").Attr("adj_y: bool = false")
    .SetShapeFn(BatchMatMulShape);

Output MatMul(const Scope& s, Input a, Input b, bool transpose_a, bool transpose_b) {
  return OpBuilder(s, "MatMul").Input(a).Input(b).Attr("transpose_a", transpose_a)
      .Attr("transpose_b", transpose_b).FinalizeOutput();
}

Output BatchMatMul(const Scope& s, Input x, Input y, bool adj_x, bool adj_y) {
  return OpBuilder(s, "BatchMatMul").Input(x).Input(y).Attr("adj_x", adj_x)
      .Attr("adj_y", adj_y).FinalizeOutput();
}

}  // namespace tact
