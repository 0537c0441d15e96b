#include "graph/nn/layers.h"

#include <functional>

#include "graph/nn/initializers.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

// Static dim `i` of x (negative: from the end), or -1 after recording an
// error naming `layer` when it is unknown.
int64_t StaticDim(const Scope& s, const Output& x, int i, int rank, const char* layer) {
  if (!x.ok()) return -1;
  const PartialTensorShape shape = x.node->output_shape(x.index);
  if (shape.dims() != rank && rank >= 0) {
    s.UpdateStatus(errors::InvalidArgument(layer, ": input '", x.name(), "' must have rank ", rank,
                                           ", has shape ", shape.DebugString()));
    return -1;
  }
  const int d = i < 0 ? shape.dims() + i : i;
  if (d < 0 || d >= shape.dims() || shape.dim_size(d) < 0) {
    s.UpdateStatus(errors::InvalidArgument(layer, ": dimension ", i, " of input '", x.name(),
                                           "' must be known, shape is ", shape.DebugString()));
    return -1;
  }
  return shape.dim_size(d);
}

Output Activate(const Scope& s, Output y, const Activation& activation) {
  return activation && y.ok() ? activation(s, y) : y;
}

}  // namespace

Output Dense(const Scope& scope, Output x, int64_t units, const Activation& activation,
             int64_t seed) {
  Scope s = scope.NewSubScope("dense");
  const int64_t in = StaticDim(s, x, -1, 2, "dense");
  if (in < 0 || !s.ok()) return Output();
  Output kernel = VariableWithInit(s, "kernel", TensorShape({in, units}), GlorotUniformInit(seed),
                                   BaseType(x.type()));
  Output bias = VariableWithInit(s, "bias", TensorShape({units}), ZerosInit(), BaseType(x.type()));
  return Activate(s, BiasAdd(s, MatMul(s, x, kernel), bias), activation);
}

Output Conv2DLayer(const Scope& scope, Output x, int64_t filters,
                   std::array<int64_t, 2> kernel_size, std::array<int64_t, 2> strides,
                   const std::string& padding, const Activation& activation, int64_t seed) {
  Scope s = scope.NewSubScope("conv2d");
  const int64_t channels = StaticDim(s, x, 3, 4, "conv2d");
  if (channels < 0 || !s.ok()) return Output();
  Output kernel = VariableWithInit(s, "kernel",
                                   TensorShape({kernel_size[0], kernel_size[1], channels, filters}),
                                   GlorotUniformInit(seed), BaseType(x.type()));
  Output bias =
      VariableWithInit(s, "bias", TensorShape({filters}), ZerosInit(), BaseType(x.type()));
  Output conv = Conv2D(s, x, kernel, {1, strides[0], strides[1], 1}, padding);
  return Activate(s, BiasAdd(s, conv, bias), activation);
}

Output MaxPool2DLayer(const Scope& scope, Output x, std::array<int64_t, 2> pool_size,
                      std::array<int64_t, 2> strides, const std::string& padding) {
  Scope s = scope.NewSubScope("max_pooling2d");
  return MaxPool(s, x, {1, pool_size[0], pool_size[1], 1}, {1, strides[0], strides[1], 1}, padding);
}

Output Flatten(const Scope& scope, Output x) {
  Scope s = scope.NewSubScope("flatten");
  if (!x.ok()) return Output();
  const PartialTensorShape shape = x.node->output_shape(x.index);
  if (shape.dims() < 1) {
    s.UpdateStatus(errors::InvalidArgument("flatten: input '", x.name(),
                                           "' must have a known rank of at least 1, has shape ",
                                           shape.DebugString()));
    return Output();
  }
  int64_t n = 1;
  for (int i = 1; i < shape.dims(); ++i) n *= StaticDim(s, x, i, -1, "flatten");
  if (!s.ok()) return Output();
  return Reshape(s, x, Tensor::FromVector<int64_t>({-1, n}));
}

Output Dropout(const Scope& scope, Output x, double rate, bool training, int64_t seed) {
  if (rate < 0 || rate >= 1) {
    scope.UpdateStatus(errors::InvalidArgument("dropout: rate must lie in [0, 1), got ", rate));
    return Output();
  }
  Scope s = scope.NewSubScope("dropout");
  if (!training || rate == 0) return Identity(s, x);
  const DataType dt = BaseType(x.type());
  auto scalar = [dt](double v) {
    return dt == DT_DOUBLE ? Tensor::Scalar<double>(v)
                           : Tensor::Scalar<float>(static_cast<float>(v));
  };
  // keep where u >= rate: P(keep) = 1 - rate for u uniform in [0, 1).
  Output u = RandomUniform(s, Shape(s, x), dt, seed);
  Output keep = Cast(s, GreaterEqual(s, u, scalar(rate)), dt);
  return Mul(s, Mul(s, x, scalar(1.0 / (1.0 - rate))), keep);
}

namespace {

// keep = u >= rate or not training; scale = 1 / (1 - rate) when training,
// else 1. `random_uniform` draws u, of x's shape and dtype.
Output DropoutWhen(const Scope& scope, Output x, double rate, Output training,
                   const std::function<Output(const Scope&, Output shape, DataType)>& random_uniform) {
  if (rate < 0 || rate >= 1) {
    scope.UpdateStatus(errors::InvalidArgument("dropout: rate must lie in [0, 1), got ", rate));
    return Output();
  }
  Scope s = scope.NewSubScope("dropout");
  const DataType dt = BaseType(x.type());
  auto scalar = [dt](double v) {
    return dt == DT_DOUBLE ? Tensor::Scalar<double>(v)
                           : Tensor::Scalar<float>(static_cast<float>(v));
  };
  Output u = random_uniform(s, Shape(s, x), dt);
  Output keep =
      Cast(s, LogicalOr(s, GreaterEqual(s, u, scalar(rate)), LogicalNot(s, training)), dt);
  Output scale =
      Add(s, Mul(s, Cast(s, training, dt), scalar(1.0 / (1.0 - rate) - 1.0)), scalar(1.0));
  return Mul(s, Mul(s, x, scale), keep);
}

}  // namespace

Output Dropout(const Scope& scope, Output x, double rate, Output training, int64_t seed) {
  return DropoutWhen(scope, x, rate, training, [seed](const Scope& s, Output shape, DataType dt) {
    return RandomUniform(s, shape, dt, seed);
  });
}

Output Dropout(const Scope& scope, Output x, double rate, Output training, int64_t seed, Output step) {
  return DropoutWhen(scope, x, rate, training, [seed, step](const Scope& s, Output shape, DataType dt) {
    Output seeds = Pack(s, {Const(s, Tensor::Scalar<int64_t>(seed)), Identity(s, step)});
    return StatelessRandomUniform(s, shape, seeds, dt);
  });
}

int64_t CountParameters(const Scope& scope) {
  int64_t n = 0;
  for (const VariableInfo& v : TrainableVariables(scope)) n += v.shape.num_elements();
  return n;
}

}  // namespace tact
