// BCast: NumPy broadcasting of two shapes, folded into the fewest dimensions
// that a strided index walk needs, plus the reduction indices that the
// gradient of a broadcasting op needs (BroadcastGradientArgs, paper 4.1).
//
//   BCast b({4, 1, 3}, {2, 1});
//   b.IsValid();        // true
//   b.output_shape();   // [4,2,3]
//   b.result_shape();   // folded: [4,2,3]; x_strides() = [3,0,1], y_strides() = [0,1,0]
//   b.grad_x_reduce_idx();  // [1]: sum dy over axis 1 to get dx
//   b.grad_y_reduce_idx();  // [0,2]
//
// Plain vectors and no Eigen, so any kernel may include it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tact {

class BCast {
 public:
  using Vec = std::vector<int64_t>;

  // Dimensions must be >= 0 (a caller validates them first: shapes read from
  // tensors are checked by the kernel that reads them).
  BCast(const Vec& x, const Vec& y);

  // False if some dimension pair is neither equal nor has a 1.
  bool IsValid() const { return valid_; }

  // The broadcast shape, at full rank max(rank x, rank y).
  const Vec& output_shape() const { return output_; }

  // The output folded: output dimensions of size 1 are dropped and adjacent
  // dimensions in which each input is broadcast (or not) alike are merged.
  // Never empty (a scalar result is [1]). Per folded dimension, x_reshape()
  // is x's extent (1 where broadcast) and x_strides() its element stride in
  // x (0 where broadcast); likewise for y.
  const Vec& result_shape() const { return result_; }
  const Vec& x_reshape() const { return x_reshape_; }
  const Vec& y_reshape() const { return y_reshape_; }
  const Vec& x_strides() const { return x_strides_; }
  const Vec& y_strides() const { return y_strides_; }

  // Axes of output_shape() over which the incoming gradient is summed to get
  // the gradient of x (resp. y), ascending. TensorFlow's rule: an axis where
  // the input has size 1 (or is missing) and the other input does not match
  // it exactly; both inputs get an axis where both are 1. Equal shapes give
  // no axes at all.
  const Vec& grad_x_reduce_idx() const { return grad_x_reduce_idx_; }
  const Vec& grad_y_reduce_idx() const { return grad_y_reduce_idx_; }

  // "[2,3]"; "[]" for a scalar.
  static std::string ShapeString(const Vec& dims);

 private:
  void Fold(const Vec& x, const Vec& y);
  void ComputeGradReduceIdx(const Vec& x, const Vec& y);

  bool valid_ = true;
  Vec output_;
  Vec result_, x_reshape_, y_reshape_, x_strides_, y_strides_;
  Vec grad_x_reduce_idx_, grad_y_reduce_idx_;
};

}  // namespace tact
