// Batch normalization as one op (TensorFlow's FusedBatchNormV3) and its
// gradient, per channel of an NHWC image batch:
//
//   y = scale * (x - mean) / sqrt(variance + epsilon) + offset
//
// Training (is_training = true): mean and variance are the batch's own,
// over N, H and W. The op also returns the running averages a layer keeps,
// (1 - f) * running + f * batch with f = exponential_avg_factor; the
// running variance takes the batch's unbiased variance (divided by n - 1,
// as TensorFlow and PyTorch do), the normalisation its biased one. With
// f = 1 the running inputs may be empty.
// Inference (is_training = false): mean and variance are the inputs.
//
//   auto bn = FusedBatchNorm(s, x, gamma, beta, moving_mean, moving_variance,
//                            {.epsilon = 1e-3f, .exponential_avg_factor = 0.01f});
//   // bn.y; bn.batch_mean and bn.batch_variance are the new running values
//
// x is half, bfloat16, float or double; scale, offset, mean and variance
// are float (double for a double x), and the arithmetic runs in that type.
// data_format NCHW is accepted so that TensorFlow graphs load, and the CPU
// kernels refuse it by name, as BiasAdd and Conv2D do.
#pragma once

#include <string>

#include "graph/op_builder.h"

namespace tact {

struct FusedBatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;
  std::string data_format = "NHWC";
};

struct FusedBatchNormOutputs {
  Output y;
  Output batch_mean;      // training: the new running mean; inference: mean
  Output batch_variance;  // training: the new running variance; inference: variance
  // What the gradient needs: the mean and biased variance that normalised
  // x (training) or the mean and variance inputs (inference), and an
  // empty third.
  Output reserve_space_1;
  Output reserve_space_2;
  Output reserve_space_3;
};

FusedBatchNormOutputs FusedBatchNorm(const Scope& s, Input x, Input scale, Input offset,
                                     Input mean, Input variance,
                                     const FusedBatchNormAttrs& attrs = {});

struct FusedBatchNormGradOutputs {
  Output x_backprop;
  Output scale_backprop;
  Output offset_backprop;
};

// FusedBatchNormGradV3: the gradients of y for x, scale and offset, given
// y_backprop and the forward op's reserve spaces. Training accounts for the
// batch's mean and variance depending on x; inference treats them as
// constants. attrs.exponential_avg_factor is not used.
FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& s, Input y_backprop, Input x,
                                             Input scale, Input reserve_space_1,
                                             Input reserve_space_2, Input reserve_space_3,
                                             const FusedBatchNormAttrs& attrs);

}  // namespace tact
