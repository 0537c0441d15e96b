// Layers: builder functions that add a layer's variables (recorded for
// InitAllVariables, nn/variables.h) and its ops, as tf.layers did.
//
//   auto x = Placeholder(s, DT_FLOAT, PartialTensorShape({-1, 28, 28, 1}));
//   auto h = Conv2DLayer(s, x, 32, {3, 3}, {1, 1}, "SAME", Relu, /*seed=*/1);
//   h = MaxPool2DLayer(s, h, {2, 2}, {2, 2}, "VALID");
//   auto logits = Dense(s, Flatten(s, h), 10, nullptr, /*seed=*/2);
//
// Each layer puts its nodes under a fresh sub-scope: "dense/kernel",
// "dense_1/kernel", "conv2d/bias". Kernels are Glorot-uniform from `seed`,
// biases zeros. The input's static shape must give the dimensions a layer
// needs (the last one for Dense, the channels for Conv2D, all but the batch
// for Flatten), else an InvalidArgument is recorded in the scope and an
// empty Output returned.
#pragma once

#include <array>
#include <functional>
#include <string>

#include "graph/op_builder.h"

namespace tact {

// An element-wise activation; the math op functions fit (Relu, Tanh, ...).
// Empty: linear.
using Activation = std::function<Output(const Scope&, Input)>;

// x [batch, in] -> activation(x kernel + bias) [batch, units].
Output Dense(const Scope& scope, Output x, int64_t units, const Activation& activation = nullptr,
             int64_t seed = 0);

// x NHWC -> activation(conv(x, kernel [kh, kw, C, filters]) + bias).
Output Conv2DLayer(const Scope& scope, Output x, int64_t filters,
                   std::array<int64_t, 2> kernel_size, std::array<int64_t, 2> strides,
                   const std::string& padding, const Activation& activation = nullptr,
                   int64_t seed = 0);

// x NHWC -> activation(depthwise_conv(x, kernel [kh, kw, C,
// depth_multiplier]) + bias [C * depth_multiplier]), as
// tf.keras.layers.DepthwiseConv2D; variables under "depthwise_conv2d/".
Output DepthwiseConv2DLayer(const Scope& scope, Output x, std::array<int64_t, 2> kernel_size,
                            std::array<int64_t, 2> strides, const std::string& padding,
                            int64_t depth_multiplier = 1, const Activation& activation = nullptr,
                            int64_t seed = 0);

Output MaxPool2DLayer(const Scope& scope, Output x, std::array<int64_t, 2> pool_size,
                      std::array<int64_t, 2> strides, const std::string& padding);

// [batch, d1, d2, ...] -> [batch, d1 * d2 * ...].
Output Flatten(const Scope& scope, Output x);

// Training: each element is zeroed with probability `rate` and the rest
// scaled by 1 / (1 - rate), from RandomUniform(seed): the same mask for the
// same seed and step id, a fresh one each step. Not training (or rate 0):
// x unchanged. rate must lie in [0, 1).
Output Dropout(const Scope& scope, Output x, double rate, bool training, int64_t seed = 0);
// The same with the mode decided at Run time by a bool scalar (a
// Placeholder fed true while training), so one graph serves both.
Output Dropout(const Scope& scope, Output x, double rate, Output training, int64_t seed = 0);
// The same with the mask a function of (seed, step) alone, through
// StatelessRandomUniform: `step` is an int64 scalar, such as the global
// step, so a run restored from a checkpoint (global step included) draws
// again the masks it drew before the fault.
Output Dropout(const Scope& scope, Output x, double rate, Output training, int64_t seed, Output step);

// Batch normalization over the last dimension (the channels), as
// tf.keras.layers.BatchNormalization: y = gamma * (x - mean) /
// sqrt(variance + epsilon) + beta, through FusedBatchNormV3
// (graph/ops/batch_norm_ops.h). Training: mean and variance are the
// batch's, over every dimension but the last, and each run moves the
// running averages towards them: moving = momentum * moving + (1 -
// momentum) * batch, the variance unbiased. Not training: the running
// averages normalise. Variables, under "batch_normalization/": gamma (ones)
// and beta (zeros), trainable; moving_mean (zeros) and moving_variance
// (ones), not trainable, so optimizers leave them and checkpoints keep them.
// x is [batch, ..., C] of rank 2 to 4 with C known; float, half and
// bfloat16 keep float statistics, double double ones. momentum must lie in
// [0, 1] and epsilon be > 0.
Output BatchNormalization(const Scope& scope, Output x, bool training, double momentum = 0.99,
                          double epsilon = 1e-3);
// The same with the mode decided at Run time by a bool scalar: only the
// mode that runs computes, and the running averages move only in runs fed
// true. A Const `training` builds its mode alone, as the bool overload.
Output BatchNormalization(const Scope& scope, Output x, Output training, double momentum = 0.99,
                          double epsilon = 1e-3);

// Layer normalization over the last dimension, as
// tf.keras.layers.LayerNormalization: y = gamma * (x - mean) /
// sqrt(variance + epsilon) + beta, mean and (biased) variance over the
// last dimension of each example; no running statistics, so training and
// inference are the same graph. Variables under "layer_normalization/":
// gamma (ones) and beta (zeros) of the last dimension, which must be known.
// Keras's default epsilon, 1e-3 (PyTorch's is 1e-5).
Output LayerNormalization(const Scope& scope, Output x, double epsilon = 1e-3);

// The rows of `params` (an embedding table, a Variable) that `ids` pick,
// as tf.nn.embedding_lookup: the Gather runs where params live (on their
// requested device, colocated with them), whatever device `scope` names,
// so that between processes only the picked rows travel, never the table;
// its gradient is the sparse one the optimizers update the picked rows
// with (graph/nn/optimizers.h, "Sparse updates").
Output EmbeddingLookup(const Scope& scope, Output params, Input ids);

// The number of elements over every trainable variable of the scope's graph.
int64_t CountParameters(const Scope& scope);

}  // namespace tact
