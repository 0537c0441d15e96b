// cuDNN descriptors that free themselves, and NHWC tensor descriptors for
// the runtime's layouts. For the GPU's convolution and pooling kernels.
#pragma once

#include <cudnn.h>

#include <cstdint>

#include "graph/status.h"
#include "graph/types.h"

namespace tact::gpu {

// Internal naming `what` and cuDNN's message, or OK.
Status CudnnStatus(cudnnStatus_t status, const char* what);

// CUDNN_DATA_FLOAT or CUDNN_DATA_DOUBLE (the types the kernels register).
cudnnDataType_t CudnnType(DataType dtype);

// alpha = 1 and beta = 0 in the scalar type cuDNN wants for `dtype`
// (double for double data, float otherwise).
struct CudnnScales {
  explicit CudnnScales(DataType dtype) : is_double(dtype == DT_DOUBLE) {}
  const void* one() const { return is_double ? static_cast<const void*>(&one64) : &one32; }
  const void* zero() const { return is_double ? static_cast<const void*>(&zero64) : &zero32; }
  bool is_double;
  float one32 = 1, zero32 = 0;
  double one64 = 1, zero64 = 0;
};

class TensorDescriptor {
 public:
  TensorDescriptor() { cudnnCreateTensorDescriptor(&desc_); }
  ~TensorDescriptor() { cudnnDestroyTensorDescriptor(desc_); }
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  // An NHWC tensor [n, h, w, c].
  Status SetNhwc(DataType dtype, int64_t n, int64_t h, int64_t w, int64_t c);
  // Dims (n, c, h, w) with explicit strides, for layout changes.
  Status SetStrided(DataType dtype, const int64_t dims[4], const int64_t strides[4]);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class FilterDescriptor {
 public:
  FilterDescriptor() { cudnnCreateFilterDescriptor(&desc_); }
  ~FilterDescriptor() { cudnnDestroyFilterDescriptor(desc_); }
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  // An OHWI filter (cuDNN's NHWC filter layout).
  Status SetOhwi(DataType dtype, int64_t out, int64_t h, int64_t w, int64_t in);
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor() { cudnnCreateConvolutionDescriptor(&desc_); }
  ~ConvolutionDescriptor() { cudnnDestroyConvolutionDescriptor(desc_); }
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

class PoolingDescriptor {
 public:
  PoolingDescriptor() { cudnnCreatePoolingDescriptor(&desc_); }
  ~PoolingDescriptor() { cudnnDestroyPoolingDescriptor(desc_); }
  PoolingDescriptor(const PoolingDescriptor&) = delete;
  PoolingDescriptor& operator=(const PoolingDescriptor&) = delete;
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

}  // namespace tact::gpu
