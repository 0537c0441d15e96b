#include "graph/tensor_shape.h"

#include <limits>

namespace tact {

StatusOr<TensorShape> TensorShape::FromDims(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return errors::InvalidArgument("dimension ", i, " of shape is negative (", dims[i], ")");
    }
    if (dims[i] != 0 && n > std::numeric_limits<int64_t>::max() / dims[i]) {
      return errors::InvalidArgument("shape has more than 2^63 elements");
    }
    n *= dims[i];
  }
  return TensorShape(dims);
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string TensorShape::DebugString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

bool PartialTensorShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

StatusOr<TensorShape> PartialTensorShape::AsTensorShape() const {
  if (!IsFullyDefined()) {
    return errors::InvalidArgument("shape ", DebugString(), " is not fully defined");
  }
  return TensorShape(dims_);
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  return IsCompatibleWith(PartialTensorShape(shape));
}

bool PartialTensorShape::IsCompatibleWith(const PartialTensorShape& other) const {
  if (!known_rank_ || !other.known_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

std::string PartialTensorShape::DebugString() const {
  if (!known_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace tact
