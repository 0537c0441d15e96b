// Initializers: builder functions that make the initial value of a
// variable from existing ops (Fill, RandomUniform, RandomStandardNormal,
// TruncatedNormal, Mul, Add), as TensorFlow's tf.keras.initializers do.
//
//   Output w0 = GlorotUniform(s, {784, 256}, DT_FLOAT, /*seed=*/1);
//   auto w = VariableWithInit(s, "w", {784, 256}, GlorotUniformInit(1));  // nn/variables.h
//
// Random initializers are deterministic: the value is a function of the
// seed and of the step id of the Run that evaluates it (graph/ops/random_ops.h).
// seed = 0 takes a seed from the node's name. dtype is float or double;
// other dtypes record an InvalidArgument in the scope.
#pragma once

#include <functional>

#include "graph/nn/variables.h"
#include "graph/op_builder.h"

namespace tact {

Output Zeros(const Scope& s, const TensorShape& shape, DataType dtype = DT_FLOAT);
Output ConstantFill(const Scope& s, const TensorShape& shape, double value,
                    DataType dtype = DT_FLOAT);
// Uniform in [minval, maxval).
Output RandomUniformValues(const Scope& s, const TensorShape& shape, double minval, double maxval,
                           DataType dtype = DT_FLOAT, int64_t seed = 0);
Output RandomNormalValues(const Scope& s, const TensorShape& shape, double mean, double stddev,
                          DataType dtype = DT_FLOAT, int64_t seed = 0);
// Normal, re-drawn beyond 2 standard deviations: values lie in
// (mean - 2 stddev, mean + 2 stddev).
Output TruncatedNormalValues(const Scope& s, const TensorShape& shape, double mean, double stddev,
                             DataType dtype = DT_FLOAT, int64_t seed = 0);
// Uniform in [-limit, limit) with limit = sqrt(6 / (fan_in + fan_out));
// see GlorotFans.
Output GlorotUniform(const Scope& s, const TensorShape& shape, DataType dtype = DT_FLOAT,
                     int64_t seed = 0);

// Keras's fans: a [in, out] matrix has (in, out); a [kh, kw, in, out]
// filter has (kh*kw*in, kh*kw*out); a vector [n] has (n, n); a scalar (1, 1).
struct Fans {
  double fan_in = 1;
  double fan_out = 1;
};
Fans GlorotFans(const TensorShape& shape);

// The same, as values to hand to VariableWithInit.
Initializer ZerosInit();
Initializer ConstantInit(double value);
Initializer RandomUniformInit(double minval, double maxval, int64_t seed = 0);
Initializer RandomNormalInit(double mean, double stddev, int64_t seed = 0);
Initializer TruncatedNormalInit(double mean, double stddev, int64_t seed = 0);
Initializer GlorotUniformInit(int64_t seed = 0);

}  // namespace tact
