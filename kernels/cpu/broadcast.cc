#include "kernels/cpu/broadcast.h"

#include <algorithm>
#include <sstream>

namespace tact {
namespace {

// x left-padded with 1s to `rank` dimensions.
BCast::Vec PadTo(const BCast::Vec& x, size_t rank) {
  BCast::Vec out(rank - x.size(), 1);
  out.insert(out.end(), x.begin(), x.end());
  return out;
}

}  // namespace

BCast::BCast(const Vec& x_in, const Vec& y_in) {
  const size_t rank = std::max(x_in.size(), y_in.size());
  const Vec x = PadTo(x_in, rank);
  const Vec y = PadTo(y_in, rank);
  output_.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (x[i] == y[i] || y[i] == 1) {
      output_[i] = x[i];
    } else if (x[i] == 1) {
      output_[i] = y[i];
    } else {
      valid_ = false;
      output_.clear();
      return;
    }
  }
  Fold(x, y);
  if (x_in != y_in) ComputeGradReduceIdx(x, y);
}

void BCast::Fold(const Vec& x, const Vec& y) {
  // Group adjacent output dims whose (x broadcast, y broadcast) flags agree:
  // within a group both inputs are either contiguous or constant, so the
  // group walks as one dimension.
  int prev = -1;  // flags of the current group: bit 0 x broadcast, bit 1 y
  for (size_t i = 0; i < output_.size(); ++i) {
    if (output_[i] == 1) continue;
    const bool xb = x[i] == 1;
    const bool yb = y[i] == 1;
    const int flags = (xb ? 1 : 0) | (yb ? 2 : 0);
    if (flags == prev) {
      result_.back() *= output_[i];
      if (!xb) x_reshape_.back() *= output_[i];
      if (!yb) y_reshape_.back() *= output_[i];
    } else {
      result_.push_back(output_[i]);
      x_reshape_.push_back(xb ? 1 : output_[i]);
      y_reshape_.push_back(yb ? 1 : output_[i]);
      prev = flags;
    }
  }
  if (result_.empty()) {
    result_ = x_reshape_ = y_reshape_ = {1};
  }
  const size_t n = result_.size();
  x_strides_.assign(n, 0);
  y_strides_.assign(n, 0);
  int64_t xs = 1, ys = 1;
  for (size_t i = n; i-- > 0;) {
    x_strides_[i] = x_reshape_[i] == 1 ? 0 : xs;
    y_strides_[i] = y_reshape_[i] == 1 ? 0 : ys;
    xs *= x_reshape_[i];
    ys *= y_reshape_[i];
  }
}

void BCast::ComputeGradReduceIdx(const Vec& x, const Vec& y) {
  for (size_t i = 0; i < output_.size(); ++i) {
    const int64_t idx = static_cast<int64_t>(i);
    if (x[i] == 1 && y[i] == 1) {
      grad_x_reduce_idx_.push_back(idx);
      grad_y_reduce_idx_.push_back(idx);
    } else if (x[i] == 1) {
      grad_x_reduce_idx_.push_back(idx);
    } else if (y[i] == 1) {
      grad_y_reduce_idx_.push_back(idx);
    }
  }
}

std::string BCast::ShapeString(const Vec& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? "," : "") << dims[i];
  os << "]";
  return os.str();
}

}  // namespace tact
