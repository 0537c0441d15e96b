#include "kernels/gpu/cudnn_util.h"

#include <climits>

namespace tact::gpu {
namespace {

bool FitsInt(const int64_t* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (v[i] < 0 || v[i] > INT_MAX) return false;
  }
  return true;
}

}  // namespace

Status CudnnStatus(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return Status::OK();
  return errors::Internal(what, " failed: ", cudnnGetErrorString(status));
}

cudnnDataType_t CudnnType(DataType dtype) {
  return dtype == DT_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

Status TensorDescriptor::SetNhwc(DataType dtype, int64_t n, int64_t h, int64_t w, int64_t c) {
  const int64_t dims[4] = {n, h, w, c};
  if (!FitsInt(dims, 4)) return errors::InvalidArgument("tensor dims exceed cuDNN's int range");
  return CudnnStatus(
      cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NHWC, CudnnType(dtype), static_cast<int>(n),
                                 static_cast<int>(c), static_cast<int>(h), static_cast<int>(w)),
      "cudnnSetTensor4dDescriptor");
}

Status TensorDescriptor::SetStrided(DataType dtype, const int64_t dims[4], const int64_t strides[4]) {
  if (!FitsInt(dims, 4) || !FitsInt(strides, 4)) {
    return errors::InvalidArgument("tensor dims exceed cuDNN's int range");
  }
  return CudnnStatus(cudnnSetTensor4dDescriptorEx(desc_, CudnnType(dtype), static_cast<int>(dims[0]),
                                                  static_cast<int>(dims[1]), static_cast<int>(dims[2]),
                                                  static_cast<int>(dims[3]), static_cast<int>(strides[0]),
                                                  static_cast<int>(strides[1]), static_cast<int>(strides[2]),
                                                  static_cast<int>(strides[3])),
                     "cudnnSetTensor4dDescriptorEx");
}

Status FilterDescriptor::SetOhwi(DataType dtype, int64_t out, int64_t h, int64_t w, int64_t in) {
  const int64_t dims[4] = {out, h, w, in};
  if (!FitsInt(dims, 4)) return errors::InvalidArgument("filter dims exceed cuDNN's int range");
  return CudnnStatus(
      cudnnSetFilter4dDescriptor(desc_, CudnnType(dtype), CUDNN_TENSOR_NHWC, static_cast<int>(out),
                                 static_cast<int>(in), static_cast<int>(h), static_cast<int>(w)),
      "cudnnSetFilter4dDescriptor");
}

}  // namespace tact::gpu
