// TensorShape: the fully known dimensions of a tensor, of any rank (rank 0 is
// a scalar). PartialTensorShape: a shape that may be partly unknown (a
// dimension of -1, or an unknown rank), as Placeholder's `shape` attr and
// shape inference use.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "graph/status.h"

namespace tact {

class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Fails unless every dimension is >= 0 and the element count fits in int64.
  static StatusOr<TensorShape> FromDims(const std::vector<int64_t>& dims);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void InsertDim(int i, int64_t size) { dims_.insert(dims_.begin() + i, size); }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }

  bool IsScalar() const { return dims_.empty(); }
  bool IsVector() const { return dims_.size() == 1; }
  bool IsMatrix() const { return dims_.size() == 2; }

  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }

  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;

 private:
  std::vector<int64_t> dims_;
};

class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  PartialTensorShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialTensorShape(std::vector<int64_t> dims)
      : known_rank_(true), dims_(std::move(dims)) {}
  PartialTensorShape(const TensorShape& s)  // NOLINT: every shape is a partial one
      : known_rank_(true), dims_(s.dim_sizes()) {}

  static PartialTensorShape Unknown() { return PartialTensorShape(); }

  bool unknown_rank() const { return !known_rank_; }
  int dims() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim_size(int i) const { return dims_[i]; }  // -1 if unknown
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // The TensorShape, if fully defined.
  StatusOr<TensorShape> AsTensorShape() const;
  // True if `shape` could be a value of this partial shape.
  bool IsCompatibleWith(const TensorShape& shape) const;
  bool IsCompatibleWith(const PartialTensorShape& other) const;

  bool operator==(const PartialTensorShape& o) const {
    return known_rank_ == o.known_rank_ && dims_ == o.dims_;
  }

  // "<unknown>", "[?,784]".
  std::string DebugString() const;

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace tact
