#include "graph/tensor.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <sstream>

namespace tact {
namespace {

// A buffer from an Allocator. String elements are constructed here and
// destroyed in the destructor, so a string tensor is never half-built.
class AllocatedBuffer final : public TensorBuffer {
 public:
  AllocatedBuffer(Allocator* a, void* data, size_t bytes, int64_t num_strings)
      : allocator_(a), data_(data), bytes_(bytes), num_strings_(num_strings) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_strings_; ++i) new (s + i) std::string();
  }
  ~AllocatedBuffer() override {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_strings_; ++i) s[i].~basic_string();
    allocator_->Deallocate(data_, bytes_);
  }
  void* data() const override { return data_; }
  size_t size() const override { return bytes_; }
  Allocator* allocator() const override { return allocator_; }

 private:
  Allocator* allocator_;
  void* data_;
  size_t bytes_;
  int64_t num_strings_;
};

size_t ElementBytes(DataType dtype) {
  return BaseType(dtype) == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
}

}  // namespace

StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape) {
  const size_t elem = ElementBytes(dtype);
  if (elem == 0) {
    return errors::InvalidArgument("cannot allocate a tensor of dtype ", DataTypeString(dtype));
  }
  const int64_t n = shape.num_elements();
  if (n < 0) return errors::InvalidArgument("negative dimension in shape ", shape.DebugString());
  // At most half the address space: no allocator can serve more, and the
  // allocators round a size up to their alignment, which must not wrap.
  if (n > 0 && static_cast<uint64_t>(n) > (SIZE_MAX / 2) / elem) {
    return errors::ResourceExhausted("tensor of shape ", shape.DebugString(), " is too large");
  }
  const size_t bytes = static_cast<size_t>(n) * elem;
  void* p = allocator->Allocate(bytes);
  if (p == nullptr) {
    return errors::ResourceExhausted("allocator '", allocator->Name(), "' could not allocate ",
                                     bytes, " bytes for a ", DataTypeString(dtype), " tensor of shape ",
                                     shape.DebugString());
  }
  const int64_t strings = BaseType(dtype) == DT_STRING ? n : 0;
  Tensor t;
  t.dtype_ = BaseType(dtype);
  t.shape_ = shape;
  t.buffer_ = std::make_shared<AllocatedBuffer>(allocator, p, bytes, strings);
  return t;
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) : Tensor(CpuAllocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape) {
  StatusOr<Tensor> t = Allocate(allocator, dtype, shape);
  if (!t.ok()) {
    std::fprintf(stderr, "tact: %s\n", t.status().ToString().c_str());
    std::abort();
  }
  *this = std::move(t).value();
}

Tensor::Tensor(DataType dtype, const TensorShape& shape, std::shared_ptr<TensorBuffer> buffer)
    : dtype_(BaseType(dtype)), shape_(shape), buffer_(std::move(buffer)) {}

size_t Tensor::TotalBytes() const {
  if (dtype_ == DT_STRING) {
    size_t total = 0;
    const std::string* s = data<std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) total += s[i].size();
    return total;
  }
  return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_);
}

void Tensor::CheckType(DataType expected) const {
  if (dtype_ != expected) {
    std::fprintf(stderr, "tact: tensor of dtype %s accessed as %s\n",
                 DataTypeString(dtype_).c_str(), DataTypeString(expected).c_str());
    std::abort();
  }
}

void Tensor::CheckElementCount(int64_t count, const TensorShape& shape) {
  if (count != shape.num_elements()) {
    std::fprintf(stderr, "tact: Tensor::FromVector got %lld values for shape %s (%lld elements)\n",
                 static_cast<long long>(count), shape.DebugString().c_str(),
                 static_cast<long long>(shape.num_elements()));
    std::abort();
  }
}

StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return errors::InvalidArgument("cannot reshape a tensor of ", NumElements(), " elements ",
                                   shape_.DebugString(), " to ", shape.DebugString());
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::DeepCopy(Allocator* allocator) const {
  if (!IsInitialized()) return Tensor();
  Tensor t(allocator, dtype_, shape_);
  if (dtype_ == DT_STRING) {
    const std::string* src = data<std::string>();
    std::string* dst = t.data<std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (TotalBytes() > 0) {
    std::memcpy(t.raw_data(), raw_data(), TotalBytes());
  }
  return t;
}

bool Tensor::BitwiseEqual(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (!IsInitialized()) return true;
  if (dtype_ == DT_STRING) {
    const std::string* a = data<std::string>();
    const std::string* b = other.data<std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  const size_t n = TotalBytes();
  return n == 0 || std::memcmp(raw_data(), other.raw_data(), n) == 0;
}

namespace {
template <typename T>
void PrintElement(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    os << static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    os << '"' << v << '"';
  } else {
    os << v;
  }
}
}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  if (!IsInitialized()) return "<uninitialized tensor>";
  std::ostringstream os;
  os << DataTypeString(dtype_) << " " << shape_.DebugString();
  const int64_t n = NumElements();
  VisitDataType(dtype_, [&]<typename T>() {
    const T* p = data<T>();
    for (int64_t i = 0; i < n && i < max_entries; ++i) {
      os << " ";
      PrintElement(os, p[i]);
    }
  });
  if (n > max_entries) os << " ...";
  return os.str();
}

}  // namespace tact
