#include "graph/nn/schedules.h"

#include <cmath>

#include "graph/nn/builder_util.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

using nn_util::Fail;
using nn_util::ScalarOf;

// Why `global_step` and `dtype` cannot make a schedule, or OK.
Status CheckStepAndType(const char* schedule, const Output& global_step, DataType dtype) {
  if (!global_step.ok()) return errors::InvalidArgument(schedule, ": no global_step given");
  const DataType step = BaseType(global_step.type());
  if (step != DT_INT64 && step != DT_INT32) {
    return errors::InvalidArgument(schedule, ": global_step '", global_step.name(),
                                   "' must be int64 or int32, got ", DataTypeString(step));
  }
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE) {
    return errors::InvalidArgument(schedule, ": the rate's dtype must be float or double, got ",
                                   DataTypeString(dtype));
  }
  return Status::OK();
}

// `v` as a tensor of global_step's type.
Tensor StepTensor(DataType step_type, const std::vector<int64_t>& v) {
  if (step_type == DT_INT64) return Tensor::FromVector<int64_t>(v);
  return Tensor::FromVector<int32_t>(std::vector<int32_t>(v.begin(), v.end()));
}
Tensor StepScalar(DataType step_type, int64_t v) {
  if (step_type == DT_INT64) return Tensor::Scalar<int64_t>(v);
  return Tensor::Scalar<int32_t>(static_cast<int32_t>(v));
}

bool FiniteAtLeastZero(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

StatusOr<Output> ExponentialDecay(const Scope& scope, double initial, Output global_step,
                                  int64_t decay_steps, double decay_rate, bool staircase,
                                  DataType dtype) {
  if (!scope.ok()) return scope.status();
  TACT_RETURN_IF_ERROR(Fail(scope, CheckStepAndType("ExponentialDecay", global_step, dtype)));
  if (!FiniteAtLeastZero(initial)) {
    return Fail(scope, errors::InvalidArgument(
                           "ExponentialDecay: the initial rate must be a finite number >= 0, got ",
                           initial));
  }
  if (decay_steps < 1) {
    return Fail(scope, errors::InvalidArgument("ExponentialDecay: decay_steps must be >= 1, got ",
                                               decay_steps));
  }
  if (!std::isfinite(decay_rate) || decay_rate <= 0) {
    return Fail(scope, errors::InvalidArgument(
                           "ExponentialDecay: decay_rate must be a finite number > 0, got ",
                           decay_rate));
  }
  Scope s = scope.NewSubScope("ExponentialDecay");
  const DataType step_type = BaseType(global_step.type());
  // The exponent in integers when floored, so that no rounding of the
  // division moves a drop by a step.
  Output p = staircase
                 ? Cast(s, FloorDiv(s, global_step, StepScalar(step_type, decay_steps)), dtype)
                 : Div(s, Cast(s, global_step, dtype),
                       ScalarOf(dtype, static_cast<double>(decay_steps)));
  Output rate = Mul(s.WithOpName("learning_rate"), ScalarOf(dtype, initial),
                    Pow(s, ScalarOf(dtype, decay_rate), p));
  if (!scope.ok()) return scope.status();
  return rate;
}

StatusOr<Output> PiecewiseConstantDecay(const Scope& scope, Output global_step,
                                        const std::vector<int64_t>& boundaries,
                                        const std::vector<double>& values, DataType dtype) {
  if (!scope.ok()) return scope.status();
  TACT_RETURN_IF_ERROR(
      Fail(scope, CheckStepAndType("PiecewiseConstantDecay", global_step, dtype)));
  if (values.size() != boundaries.size() + 1) {
    return Fail(scope, errors::InvalidArgument("PiecewiseConstantDecay: ", boundaries.size(),
                                               " boundaries need ", boundaries.size() + 1,
                                               " values, got ", values.size()));
  }
  for (size_t i = 1; i < boundaries.size(); ++i) {
    if (boundaries[i] <= boundaries[i - 1]) {
      return Fail(scope, errors::InvalidArgument(
                             "PiecewiseConstantDecay: boundaries must increase, but boundary ", i,
                             " (", boundaries[i], ") follows ", boundaries[i - 1]));
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!FiniteAtLeastZero(values[i])) {
      return Fail(scope, errors::InvalidArgument("PiecewiseConstantDecay: value ", i,
                                                 " must be a finite number >= 0, got ",
                                                 values[i]));
    }
  }
  Scope s = scope.NewSubScope("PiecewiseConstantDecay");
  Output rates = Const(s, dtype == DT_DOUBLE
                              ? Tensor::FromVector<double>(values)
                              : Tensor::FromVector<float>(
                                    std::vector<float>(values.begin(), values.end())));
  // The piece is how many boundaries the step has passed.
  Output piece =
      boundaries.empty()
          ? Const(s, Tensor::Scalar<int32_t>(0))
          : Sum(s,
                Cast(s, Greater(s, global_step, StepTensor(BaseType(global_step.type()), boundaries)),
                     DT_INT32),
                0);
  Output rate = Gather(s.WithOpName("learning_rate"), rates, piece);
  if (!scope.ok()) return scope.status();
  return rate;
}

}  // namespace tact
