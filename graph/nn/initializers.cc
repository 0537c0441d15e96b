#include "graph/nn/initializers.h"

#include <cmath>
#include <vector>

#include "graph/nn/builder_util.h"
#include "graph/ops/fill_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/random_ops.h"

namespace tact {
namespace {

using nn_util::ScalarOf;

// The shape as an int64 vector Const, the input of Fill and the random ops.
Output ShapeConst(const Scope& s, const TensorShape& shape) {
  return Const(s, Tensor::FromVector<int64_t>(shape.dim_sizes()));
}

bool CheckFloat(const Scope& s, DataType dtype, const char* what) {
  if (dtype == DT_FLOAT || dtype == DT_DOUBLE) return true;
  s.UpdateStatus(errors::InvalidArgument(what, " initializer: dtype must be float or double, got ",
                                         DataTypeString(dtype)));
  return false;
}

// mean + stddev * x, skipping the arithmetic that would not change x.
Output Affine(const Scope& s, Output x, double scale, double offset, DataType dtype) {
  if (scale != 1.0) x = Mul(s, x, ScalarOf(dtype, scale));
  if (offset != 0.0) x = Add(s, x, ScalarOf(dtype, offset));
  return x;
}

}  // namespace

Output Zeros(const Scope& s, const TensorShape& shape, DataType dtype) {
  return ConstantFill(s, shape, 0.0, dtype);
}

Output ConstantFill(const Scope& s, const TensorShape& shape, double value, DataType dtype) {
  if (!CheckFloat(s, dtype, "constant")) return Output();
  return Fill(s, ShapeConst(s, shape), ScalarOf(dtype, value));
}

Output RandomUniformValues(const Scope& s, const TensorShape& shape, double minval, double maxval,
                           DataType dtype, int64_t seed) {
  if (!CheckFloat(s, dtype, "random uniform")) return Output();
  return Affine(s, RandomUniform(s, ShapeConst(s, shape), dtype, seed), maxval - minval, minval,
                dtype);
}

Output RandomNormalValues(const Scope& s, const TensorShape& shape, double mean, double stddev,
                          DataType dtype, int64_t seed) {
  if (!CheckFloat(s, dtype, "random normal")) return Output();
  return Affine(s, RandomStandardNormal(s, ShapeConst(s, shape), dtype, seed), stddev, mean, dtype);
}

Output TruncatedNormalValues(const Scope& s, const TensorShape& shape, double mean, double stddev,
                             DataType dtype, int64_t seed) {
  if (!CheckFloat(s, dtype, "truncated normal")) return Output();
  return Affine(s, TruncatedNormal(s, ShapeConst(s, shape), dtype, seed), stddev, mean, dtype);
}

Fans GlorotFans(const TensorShape& shape) {
  const int rank = shape.dims();
  if (rank == 0) return {1, 1};
  if (rank == 1) return {double(shape.dim_size(0)), double(shape.dim_size(0))};
  double receptive = 1;
  for (int i = 0; i + 2 < rank; ++i) receptive *= double(shape.dim_size(i));
  return {receptive * double(shape.dim_size(rank - 2)),
          receptive * double(shape.dim_size(rank - 1))};
}

Output GlorotUniform(const Scope& s, const TensorShape& shape, DataType dtype, int64_t seed) {
  const Fans f = GlorotFans(shape);
  const double limit = std::sqrt(6.0 / std::max(1.0, f.fan_in + f.fan_out));
  return RandomUniformValues(s, shape, -limit, limit, dtype, seed);
}

Initializer ZerosInit() {
  return [](const Scope& s, const TensorShape& shape, DataType dtype) {
    return Zeros(s, shape, dtype);
  };
}
Initializer ConstantInit(double value) {
  return [=](const Scope& s, const TensorShape& shape, DataType dtype) {
    return ConstantFill(s, shape, value, dtype);
  };
}
Initializer RandomUniformInit(double minval, double maxval, int64_t seed) {
  return [=](const Scope& s, const TensorShape& shape, DataType dtype) {
    return RandomUniformValues(s, shape, minval, maxval, dtype, seed);
  };
}
Initializer RandomNormalInit(double mean, double stddev, int64_t seed) {
  return [=](const Scope& s, const TensorShape& shape, DataType dtype) {
    return RandomNormalValues(s, shape, mean, stddev, dtype, seed);
  };
}
Initializer TruncatedNormalInit(double mean, double stddev, int64_t seed) {
  return [=](const Scope& s, const TensorShape& shape, DataType dtype) {
    return TruncatedNormalValues(s, shape, mean, stddev, dtype, seed);
  };
}
Initializer GlorotUniformInit(int64_t seed) {
  return [=](const Scope& s, const TensorShape& shape, DataType dtype) {
    return GlorotUniform(s, shape, dtype, seed);
  };
}

}  // namespace tact
