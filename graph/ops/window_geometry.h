// Window geometry shared by convolution and pooling: how an input dimension,
// a window (kernel) size, a stride and a padding scheme give the output size
// and the padding in front, exactly as TensorFlow computes them. The shape
// functions (graph layer) and the CPU kernels both use it, so a graph's
// inferred shapes and its computed tensors can never disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"

namespace tact {

enum class Padding { kValid, kSame };

// "SAME" / "VALID"; InvalidArgument for anything else (the ops' attrs only
// allow these two, so this fails only for a hand-built kernel).
StatusOr<Padding> PaddingFromString(const std::string& s);

struct WindowDim {
  int64_t output = 0;      // output size
  int64_t pad_before = 0;  // padding in front of the first input element
};

// VALID: out = (in - effective_k + stride) / stride (TF truncates), no padding.
// SAME:  out = ceil(in / stride), pad_total = max((out-1)*stride + effective_k - in, 0),
//        pad_before = pad_total / 2 (the extra element goes after, as in TF).
// effective_k = (k - 1) * dilation + 1. InvalidArgument naming `what` for a
// stride, size or dilation < 1, or a VALID output size below 0.
// SAME with in == 0 gives out == 0.
StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                     Padding padding, const char* what);

// Checks a 4-element NHWC list attr (strides, ksize, dilations): length 4,
// every entry >= 1 and, unless `allow_batch_depth`, entries 0 and 3 equal
// to 1. The error names the attr and shows the list.
Status CheckNhwcWindowList(const std::vector<int64_t>& v, const char* attr,
                           bool allow_batch_depth = false);

}  // namespace tact
