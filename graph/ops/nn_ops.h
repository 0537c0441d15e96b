// Builder functions for neural-network ops: bias, 2-D convolution (full and
// depthwise) and its gradients, pooling and its gradients, softmax and the sparse softmax
// cross-entropy loss. Images are NHWC and filters HWIO, as in TensorFlow;
// `strides`, `ksize` and `dilations` are 4-element NHWC lists whose batch
// and depth entries must be 1; `padding` is "SAME" or "VALID" with
// TensorFlow's output sizes (graph/ops/window_geometry.h).
//
//   auto conv = Conv2D(s, images, filter, {1, 1, 1, 1}, "SAME");
//   auto pool = MaxPool(s, Relu(s, BiasAdd(s, conv, bias)), {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
#pragma once

#include <string>
#include <vector>

#include "graph/op_builder.h"

namespace tact {

// value [..., C] + bias [C]. Only data_format "NHWC" has a CPU kernel.
Output BiasAdd(const Scope& s, Input value, Input bias, const std::string& data_format = "NHWC");
// The gradient of BiasAdd for the bias: out_backprop summed over all but the last dim.
Output BiasAddGrad(const Scope& s, Input out_backprop, const std::string& data_format = "NHWC");

// input [N, H, W, Cin] conv filter [KH, KW, Cin, Cout] -> [N, OH, OW, Cout].
Output Conv2D(const Scope& s, Input input, Input filter, std::vector<int64_t> strides,
              const std::string& padding, std::vector<int64_t> dilations = {1, 1, 1, 1});
// The gradient of Conv2D for its input; input_sizes is an int32 [4] vector.
Output Conv2DBackpropInput(const Scope& s, Input input_sizes, Input filter, Input out_backprop,
                           std::vector<int64_t> strides, const std::string& padding,
                           std::vector<int64_t> dilations = {1, 1, 1, 1});
// The gradient of Conv2D for its filter; filter_sizes is an int32 [4] vector.
Output Conv2DBackpropFilter(const Scope& s, Input input, Input filter_sizes, Input out_backprop,
                            std::vector<int64_t> strides, const std::string& padding,
                            std::vector<int64_t> dilations = {1, 1, 1, 1});

// tf.nn.depthwise_conv2d's op: each input channel convolved with its own
// channel_multiplier filters. input [N, H, W, C] and filter
// [KH, KW, C, M] -> [N, OH, OW, C * M], output channel c * M + m from input
// channel c and filter [:, :, c, m]. The building block of MobileNet's
// separable convolutions (a depthwise one, then a 1x1 Conv2D).
Output DepthwiseConv2dNative(const Scope& s, Input input, Input filter,
                             std::vector<int64_t> strides, const std::string& padding,
                             std::vector<int64_t> dilations = {1, 1, 1, 1});
// Its gradients for the input and for the filter, as Conv2D's.
Output DepthwiseConv2dNativeBackpropInput(const Scope& s, Input input_sizes, Input filter,
                                          Input out_backprop, std::vector<int64_t> strides,
                                          const std::string& padding,
                                          std::vector<int64_t> dilations = {1, 1, 1, 1});
Output DepthwiseConv2dNativeBackpropFilter(const Scope& s, Input input, Input filter_sizes,
                                           Input out_backprop, std::vector<int64_t> strides,
                                           const std::string& padding,
                                           std::vector<int64_t> dilations = {1, 1, 1, 1});

Output MaxPool(const Scope& s, Input input, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, const std::string& padding);
// AvgPool divides each window's sum by the number of in-bounds elements.
Output AvgPool(const Scope& s, Input value, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, const std::string& padding);
// Routes each grad element to its window's maximum (the first one on ties).
Output MaxPoolGrad(const Scope& s, Input orig_input, Input orig_output, Input grad,
                   std::vector<int64_t> ksize, std::vector<int64_t> strides,
                   const std::string& padding);
// MaxPoolGrad's gradient for its grad input: grad (orig_input's shape) at
// each window's maximum, in orig_output's shape.
Output MaxPoolGradGrad(const Scope& s, Input orig_input, Input orig_output, Input grad,
                       std::vector<int64_t> ksize, std::vector<int64_t> strides,
                       const std::string& padding);
// orig_input_shape is an int32 [4] vector.
Output AvgPoolGrad(const Scope& s, Input orig_input_shape, Input grad, std::vector<int64_t> ksize,
                   std::vector<int64_t> strides, const std::string& padding);

// Over the last axis, numerically stable (the maximum is subtracted first).
Output Softmax(const Scope& s, Input logits);
Output LogSoftmax(const Scope& s, Input logits);
// features [batch, classes], labels int32/int64 [batch] ->
// {loss [batch], backprop [batch, classes]}. A label outside [0, classes)
// is an InvalidArgument at run time.
std::vector<Output> SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Input features,
                                                        Input labels);
// features and labels [batch, classes] (each row of labels a probability
// distribution) -> {loss [batch], backprop [batch, classes]}: per row,
// -sum(labels * log_softmax(features)), and softmax(features) - labels.
std::vector<Output> SoftmaxCrossEntropyWithLogits(const Scope& s, Input features, Input labels);

// The k largest entries of each row of `input` (its last dimension) and
// their int32 indices: {values, indices}, each [..., k], largest first; of
// equal values the lower index comes first. k is an int32 scalar <= the
// last dimension. (TopKV2; `sorted` is accepted, the order always sorted.)
std::vector<Output> TopK(const Scope& s, Input input, Input k, bool sorted = true);

// For each row i of predictions [batch, classes] (float): is
// predictions[i, targets[i]] among the row's k largest? Ties at the k-th
// place count as in, as TensorFlow's; a target outside [0, classes) or a
// non-finite prediction in its row gives false. InTopKV2: targets and k
// are int32 or int64.
Output InTopK(const Scope& s, Input predictions, Input targets, Input k);

// sum(t^2) / 2 over every element, a scalar (weight decay's penalty). The
// sum's order depends only on the number of elements.
Output L2Loss(const Scope& s, Input t);

}  // namespace tact
