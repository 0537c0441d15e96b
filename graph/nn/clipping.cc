#include "graph/nn/clipping.h"

#include <cmath>

#include "graph/nn/builder_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using nn_util::Fail;
using nn_util::ScalarOf;

}  // namespace

StatusOr<ClippedGradients> ClipByGlobalNorm(const Scope& scope, const std::vector<Output>& grads,
                                            double clip_norm) {
  if (!scope.ok()) return scope.status();
  if (grads.empty()) {
    return Fail(scope, errors::InvalidArgument("ClipByGlobalNorm: no gradients"));
  }
  if (!std::isfinite(clip_norm) || clip_norm <= 0) {
    return Fail(scope, errors::InvalidArgument(
                           "ClipByGlobalNorm: clip_norm must be a finite number > 0, got ",
                           clip_norm));
  }
  const DataType dt = grads[0].ok() ? BaseType(grads[0].type()) : DT_INVALID;
  for (const Output& g : grads) {
    if (!g.ok()) return Fail(scope, errors::InvalidArgument("ClipByGlobalNorm: an empty gradient"));
    if (BaseType(g.type()) != dt || (dt != DT_FLOAT && dt != DT_DOUBLE)) {
      return Fail(scope, errors::InvalidArgument(
                             "ClipByGlobalNorm: gradient '", g.name(), "' is ",
                             DataTypeString(BaseType(g.type())), "; every gradient must be float,",
                             " or every one double, like the first ('", grads[0].name(), "')"));
    }
  }
  Scope s = scope.NewSubScope("clip_by_global_norm");
  std::vector<Input> squares;
  for (const Output& g : grads) {
    squares.emplace_back(Sum(s, Square(s, Reshape(s, g, {-1})), 0));
  }
  ClippedGradients out;
  out.global_norm = Sqrt(s.WithOpName("global_norm"), AddN(s, squares));
  // A NaN norm must give NaN gradients, but Maximum(NaN, c) may give c:
  // the norm's own NaN is carried into the scale by adding 0 * norm.
  Output nan_if_not_finite = Mul(s, out.global_norm, ScalarOf(dt, 0));
  Output scale = Add(s,
                     Div(s, ScalarOf(dt, clip_norm),
                         Maximum(s, out.global_norm, ScalarOf(dt, clip_norm))),
                     nan_if_not_finite);
  for (const Output& g : grads) out.grads.push_back(Mul(s, g, scale));
  if (!scope.ok()) return scope.status();
  return out;
}

}  // namespace tact
