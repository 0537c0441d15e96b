#include "graph/nn/layers.h"

#include <algorithm>
#include <functional>

#include "graph/attr_value.h"
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

Output DepthwiseConv2DLayer(const Scope& scope, Output x, std::array<int64_t, 2> kernel_size,
                            std::array<int64_t, 2> strides, const std::string& padding,
                            int64_t depth_multiplier, const Activation& activation, int64_t seed) {
  Scope s = scope.NewSubScope("depthwise_conv2d");
  const int64_t channels = StaticDim(s, x, 3, 4, "depthwise_conv2d");
  if (channels < 0 || !s.ok()) return Output();
  Output kernel = VariableWithInit(
      s, "depthwise_kernel",
      TensorShape({kernel_size[0], kernel_size[1], channels, depth_multiplier}),
      GlorotUniformInit(seed), BaseType(x.type()));
  Output bias = VariableWithInit(s, "bias", TensorShape({channels * depth_multiplier}),
                                 ZerosInit(), BaseType(x.type()));
  Output conv = DepthwiseConv2dNative(s, x, kernel, {1, strides[0], strides[1], 1}, padding);
  return Activate(s, BiasAdd(s, conv, bias), activation);
}

Output MaxPool2DLayer(const Scope& scope, Output x, std::array<int64_t, 2> pool_size,
                      std::array<int64_t, 2> strides, const std::string& padding) {
  Scope s = scope.NewSubScope("max_pooling2d");
  return MaxPool(s, x, {1, pool_size[0], pool_size[1], 1}, {1, strides[0], strides[1], 1}, padding);
}

Output LayerNormalization(const Scope& scope, Output x, double epsilon) {
  Scope s = scope.NewSubScope("layer_normalization");
  const int64_t depth = StaticDim(s, x, -1, -1, "layer_normalization");
  if (depth < 0 || !s.ok()) return Output();
  const DataType dtype = BaseType(x.type());
  Output gamma = VariableWithInit(s, "gamma", TensorShape({depth}), ConstantInit(1), dtype);
  Output beta = VariableWithInit(s, "beta", TensorShape({depth}), ZerosInit(), dtype);
  Output mean = Mean(s, x, -1, /*keep_dims=*/true);
  Output variance = Mean(s, SquaredDifference(s, x, mean), -1, /*keep_dims=*/true);
  Output scale = Mul(s, Rsqrt(s, Add(s, variance, Cast(s, epsilon, dtype))), gamma);
  return Add(s, Mul(s, Sub(s, x, mean), scale), beta);
}

Output EmbeddingLookup(const Scope& scope, Output params, Input ids) {
  if (!params.ok()) return Gather(scope, params, ids);  // records the error
  Scope s = scope.NewSubScope("embedding_lookup");
  return Gather(s.WithDevice(params.node->requested_device()).ColocateWith(params), params, ids);
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

namespace {

struct BatchNormVariables {
  Output gamma, beta, moving_mean, moving_variance;
};

// y in one mode, from the values given (the variables, or their Switch
// outputs). Training also assigns the new running averages, and y waits for
// both assignments, so that a run that fetches y has updated them.
Output BatchNormMode(const Scope& s, const BatchNormVariables& v, const BatchNormVariables& values,
                     Output x, double momentum, double epsilon, bool training) {
  const FusedBatchNormAttrs attrs{.epsilon = static_cast<float>(epsilon),
                                  .exponential_avg_factor = static_cast<float>(1 - momentum),
                                  .is_training = training};
  FusedBatchNormOutputs bn = FusedBatchNorm(s, x, values.gamma, values.beta, values.moving_mean,
                                            values.moving_variance, attrs);
  if (!training) return bn.y;
  Output mean = Assign(s.WithOpName("update_moving_mean"), v.moving_mean, bn.batch_mean);
  Output var = Assign(s.WithOpName("update_moving_variance"), v.moving_variance, bn.batch_variance);
  return Identity(s.WithControlDependencies({mean, var}), bn.y);
}

using Normalise = std::function<Output(const Scope&, Output x4, const BatchNormVariables&)>;

// The layer's variables and checks; `normalise` builds the rest on x viewed
// as rank 4 ([rows, 1, 1, C] where x is not).
Output BatchNormalizationWith(const Scope& scope, Output x, double momentum, double epsilon,
                              const Normalise& normalise) {
  Scope s = scope.NewSubScope("batch_normalization");
  if (!(momentum >= 0 && momentum <= 1) || !(epsilon > 0)) {
    s.UpdateStatus(errors::InvalidArgument("batch_normalization: momentum must lie in [0, 1] ",
                                           "and epsilon be > 0, got ", momentum, " and ", epsilon));
    return Output();
  }
  if (!x.ok()) return Output();
  const int rank = x.node->output_shape(x.index).dims();
  if (rank < 2 || rank > 4) {
    s.UpdateStatus(errors::InvalidArgument("batch_normalization: input '", x.name(),
                                           "' must have rank 2 to 4, has shape ",
                                           x.node->output_shape(x.index).DebugString()));
    return Output();
  }
  const int64_t c = StaticDim(s, x, -1, -1, "batch_normalization");
  if (c < 0 || !s.ok()) return Output();
  const DataType u = BaseType(x.type()) == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  const TensorShape shape({c});
  BatchNormVariables v;
  v.gamma = VariableWithInit(s, "gamma", shape, ConstantInit(1), u);
  v.beta = VariableWithInit(s, "beta", shape, ZerosInit(), u);
  v.moving_mean = VariableWithInit(s, "moving_mean", shape, ZerosInit(), u, /*trainable=*/false);
  v.moving_variance =
      VariableWithInit(s, "moving_variance", shape, ConstantInit(1), u, /*trainable=*/false);
  if (rank == 4) return normalise(s, x, v);
  Output y = normalise(s, Reshape(s, x, Tensor::FromVector<int64_t>({-1, 1, 1, c})), v);
  // Back to x's shape, as a constant where at most one dimension is
  // unknown, so that the layers after this one see the static shape.
  std::vector<int64_t> dims = x.node->output_shape(x.index).dim_sizes();
  if (std::count(dims.begin(), dims.end(), -1) > 1) return Reshape(s, y, Shape(s, x));
  return Reshape(s, y, Tensor::FromVector<int64_t>(dims));
}

}  // namespace

Output BatchNormalization(const Scope& scope, Output x, bool training, double momentum,
                          double epsilon) {
  return BatchNormalizationWith(scope, x, momentum, epsilon,
                                [&](const Scope& s, Output x4, const BatchNormVariables& v) {
                                  return BatchNormMode(s, v, v, x4, momentum, epsilon, training);
                                });
}

Output BatchNormalization(const Scope& scope, Output x, Output training, double momentum,
                          double epsilon) {
  if (training.ok() && training.type() != DT_BOOL) {
    scope.UpdateStatus(errors::InvalidArgument("batch_normalization: training must be a bool ",
                                               "scalar, got ", DataTypeString(training.type())));
    return Output();
  }
  // A constant mode builds that mode alone, as Keras's smart_cond does: an
  // inference graph then holds no assignment and freezes.
  if (training.ok() && training.node->op() == "Const") {
    auto it = training.node->attrs().find("value");
    if (it != training.node->attrs().end() && it->second.kind() == AttrValue::Kind::kTensor &&
        it->second.tensor().NumElements() == 1) {
      return BatchNormalization(scope, x, it->second.tensor().data<bool>()[0], momentum, epsilon);
    }
  }
  return BatchNormalizationWith(
      scope, x, momentum, epsilon, [&](const Scope& s, Output x4, const BatchNormVariables& v) {
        // Every input enters both modes through a Switch on `training`, so
        // the mode not taken sees dead inputs: its kernel and (in
        // inference) the assignments do not run.
        const SwitchOutputs in = Switch(s, x4, training), g = Switch(s, v.gamma, training),
                            b = Switch(s, v.beta, training), m = Switch(s, v.moving_mean, training),
                            var = Switch(s, v.moving_variance, training);
        const BatchNormVariables on_true{g.output_true, b.output_true, m.output_true,
                                         var.output_true};
        const BatchNormVariables on_false{g.output_false, b.output_false, m.output_false,
                                          var.output_false};
        Output train = BatchNormMode(s, v, on_true, in.output_true, momentum, epsilon, true);
        Output infer = BatchNormMode(s, v, on_false, in.output_false, momentum, epsilon, false);
        return Merge(s, {infer, train}).output;
      });
}

int64_t CountParameters(const Scope& scope) {
  int64_t n = 0;
  for (const VariableInfo& v : TrainableVariables(scope)) n += v.shape.num_elements();
  return n;
}

}  // namespace tact
