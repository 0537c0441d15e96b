#include "graph/ops/window_geometry.h"

#include <algorithm>

namespace tact {

StatusOr<Padding> PaddingFromString(const std::string& s) {
  if (s == "SAME") return Padding::kSame;
  if (s == "VALID") return Padding::kValid;
  return errors::InvalidArgument("padding must be 'SAME' or 'VALID', got '", s, "'");
}

StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                     Padding padding, const char* what) {
  if (stride < 1 || k < 1 || dilation < 1 || in < 0) {
    return errors::InvalidArgument(what, ": input size ", in, ", window ", k, ", stride ", stride,
                                   " and dilation ", dilation,
                                   " must be >= 1 (input size >= 0)");
  }
  const int64_t eff_k = (k - 1) * dilation + 1;
  WindowDim d;
  if (padding == Padding::kValid) {
    // TF's formula, including its truncating division: a window just past
    // the input gives an empty output rather than an error.
    d.output = (in - eff_k + stride) / stride;
    if (d.output < 0) {
      return errors::InvalidArgument(what, ": the window (", eff_k,
                                     ") is larger than the input (", in, ") with VALID padding");
    }
  } else {
    d.output = (in + stride - 1) / stride;
    const int64_t pad_total = std::max<int64_t>((d.output - 1) * stride + eff_k - in, 0);
    d.pad_before = d.output == 0 ? 0 : pad_total / 2;
  }
  return d;
}

Status CheckNhwcWindowList(const std::vector<int64_t>& v, const char* attr,
                           bool allow_batch_depth) {
  auto show = [&] {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) s += ",";
      s += std::to_string(v[i]);
    }
    return s + "]";
  };
  if (v.size() != 4) {
    return errors::InvalidArgument(attr, " must have 4 entries (NHWC), got ", show());
  }
  for (int64_t x : v) {
    if (x < 1) return errors::InvalidArgument(attr, " entries must be >= 1, got ", show());
  }
  if (!allow_batch_depth && (v[0] != 1 || v[3] != 1)) {
    return errors::InvalidArgument(attr, " in the batch and depth dimensions must be 1, got ",
                                   show());
  }
  return Status::OK();
}

}  // namespace tact
