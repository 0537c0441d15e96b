// Tensor: a typed, shaped view of a refcounted buffer.
//
// Copying a Tensor is cheap and shares the buffer (paper 3.1: buffers are
// reference-counted and freed when the last user is done). Mutating through
// one copy is visible through the others; make a deep copy with DeepCopy().
// String tensors hold std::string elements, constructed and destroyed with
// the buffer.
//
//   Tensor t(DT_FLOAT, {2, 3});
//   float* p = t.data<float>();          // 6 floats
//   Tensor s = Tensor::Scalar<int32_t>(7);
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/allocator.h"
#include "graph/status.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace tact {

// The bytes behind one or more Tensors. Subclasses may wrap memory that
// tact did not allocate (a received message, a memory-mapped file).
class TensorBuffer {
 public:
  virtual ~TensorBuffer() = default;
  virtual void* data() const = 0;
  virtual size_t size() const = 0;  // bytes usable by the tensor
  // The allocator the bytes came from, or nullptr for foreign memory.
  virtual Allocator* allocator() const { return nullptr; }
};

class Tensor {
 public:
  // An uninitialised tensor: DT_INVALID, no buffer.
  Tensor() = default;
  // Allocates from CpuAllocator(). Aborts if the host is out of memory; use
  // Allocate() where that must be an error.
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);
  // A view of `buffer`, which must hold at least the bytes that dtype and
  // shape need (not for DT_STRING).
  Tensor(DataType dtype, const TensorShape& shape, std::shared_ptr<TensorBuffer> buffer);

  // ResourceExhausted (naming the bytes and the allocator) if the memory
  // cannot be had; InvalidArgument for a dtype without a C++ type.
  static StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    *t.data<T>() = std::move(value);
    return t;
  }
  // `values` must hold exactly shape.num_elements() elements: anything
  // else is a programmer error and aborts, naming both counts. Without a
  // shape, a vector of values.size().
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape);
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, TensorShape({static_cast<int64_t>(values.size())}));
  }

  bool IsInitialized() const { return dtype_ != DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes of element data (for DT_STRING: the sum of the string lengths).
  size_t TotalBytes() const;

  // Typed access; T must be the C++ type of dtype() (checked: a mismatch is a
  // programmer error and aborts).
  template <typename T>
  T* data() {
    CheckType(DataTypeToEnum<T>::value);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    CheckType(DataTypeToEnum<T>::value);
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T& scalar() { return *data<T>(); }
  template <typename T>
  const T& scalar() const { return *data<T>(); }
  void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }

  // A tensor of the same buffer with another shape of equal element count.
  StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A tensor with its own copy of the bytes (strings copied one by one).
  Tensor DeepCopy(Allocator* allocator = CpuAllocator()) const;
  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && buffer_ == other.buffer_;
  }
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }

  // True if dtype, shape and every element are equal (bitwise for floats,
  // so NaNs with the same bits compare equal).
  bool BitwiseEqual(const Tensor& other) const;

  // "float [2,3] 1 2 3 4 5 6" with at most `max_entries` values.
  std::string DebugString(int max_entries = 16) const;

 private:
  void CheckType(DataType expected) const;
  // FromVector's check: `count` values must fill `shape` exactly (a
  // mismatch is a programmer error and aborts, naming both).
  static void CheckElementCount(int64_t count, const TensorShape& shape);

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
};

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values, const TensorShape& shape) {
  CheckElementCount(static_cast<int64_t>(values.size()), shape);
  Tensor t(DataTypeToEnum<T>::value, shape);
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace tact
