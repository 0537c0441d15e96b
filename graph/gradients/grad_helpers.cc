#include "graph/gradients/grad_helpers.h"

#include "graph/ops/all_ops.h"

namespace tact {
namespace grad {

Output In(const Node* op, int i) {
  const Edge* e = op->input_edge(i);
  return e == nullptr ? Output() : Output(e->src, e->src_output);
}

bool IsConstZero(const Output& x) {
  Tensor value;
  if (!x.ok() || x.node->op() != "Const" || !GetAttr(x.node->attrs(), "value", &value).ok()) {
    return false;
  }
  if (value.NumElements() != 1) return false;
  if (value.dtype() == DT_INT32) return value.data<int32_t>()[0] == 0;
  return value.dtype() == DT_INT64 && value.data<int64_t>()[0] == 0;
}

Output ScalarOf(const Scope& s, DataType t, double v) {
  if (t == DT_DOUBLE) return Const(s, Tensor::Scalar<double>(v));
  Output f = Const(s, Tensor::Scalar<float>(static_cast<float>(v)));
  return t == DT_FLOAT ? f : Cast(s, f, t);
}

Output ConjIfComplex(const Scope& s, Output x) {
  return x.ok() && DataTypeIsComplex(x.type()) ? Conj(s, x) : x;
}

Output ReduceToShapeOf(const Scope& s, Output g, Output x, Output y, bool first) {
  Output sx = Shape(s, x), sy = Shape(s, y);
  std::vector<Output> r = BroadcastGradientArgs(s, sx, sy);
  if (r.size() != 2) return Output();
  return Reshape(s, Sum(s, g, r[first ? 0 : 1]), first ? sx : sy);
}

Output SumToShapeOf(const Scope& s, Output g, Output x) {
  Output sx = Shape(s, x);
  std::vector<Output> r = BroadcastGradientArgs(s, sx, Shape(s, g));
  if (r.size() != 2) return Output();
  return Reshape(s, Sum(s, g, r[0]), sx);
}

}  // namespace grad
}  // namespace tact
