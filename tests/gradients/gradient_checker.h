// Numeric gradient checker: compares the Jacobian that AddSymbolicGradients
// builds (one backward pass per element of y, seeded with a one-hot grad_y)
// against central differences (f(x + h) - f(x - h)) / 2h, all in float64.
// Graphs run through a Session; each x is a DT_DOUBLE Placeholder.
#pragma once

#include <functional>
#include <vector>

#include "graph/scope.h"
#include "graph/tensor.h"

namespace tact {

// Max |theoretical - numeric| over every entry of every dy/dx_i. `xs` are
// Placeholders of `scope`, fed `x_values`; y is built from them.
StatusOr<double> ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                      const std::vector<Tensor>& x_values, const Output& y,
                                      double delta = 1e-6);

// Runs `fetches` of the scope's graph once with xs fed.
StatusOr<std::vector<Tensor>> RunGraph(const Scope& scope, const std::vector<Output>& xs,
                                       const std::vector<Tensor>& x_values,
                                       const std::vector<Output>& fetches);

// Builds y from DT_DOUBLE Placeholders "x0", "x1", ... of `shapes`, fed
// RandomDoubles in [lo, hi) (seeds 17, 18, ...), and returns
// ComputeGradientError for every one of them.
using BuildFromInputs = std::function<Output(const Scope&, const std::vector<Output>& xs)>;
StatusOr<double> GradientErrorOf(const std::vector<TensorShape>& shapes,
                                 const BuildFromInputs& build, double lo = -1, double hi = 1);

// A double tensor of `shape` with values uniform in [lo, hi) (fixed seed).
Tensor RandomDoubles(const TensorShape& shape, unsigned seed, double lo = -1, double hi = 1);

}  // namespace tact
