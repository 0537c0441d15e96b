// The element types the element-wise, reduction and fill launch functions
// take, as a tag beside untyped pointers: one launch function per op group
// rather than one per (op, type), and no runtime header in the launch
// headers (nvcc never sees tact's DataType). Only dtypes a GPU device keeps
// in device memory are here: int32 lives on the host (gpu::KeptInHostMemory).
#pragma once

#include <cstdint>

namespace tact::gpu {

enum class ElementType : int32_t { kFloat, kDouble, kHalf, kBfloat16, kInt64, kBool };

}  // namespace tact::gpu
