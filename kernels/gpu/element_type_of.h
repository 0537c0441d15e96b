// DataType -> ElementType, for the OpKernels of kernels/gpu/*_ops.cc (the
// .cu side sees only element_type.h).
#pragma once

#include <optional>

#include "graph/types.h"
#include "kernels/gpu/element_type.h"

namespace tact::gpu {

// nullopt for dtypes that have no GPU element type (int32 and the others
// kept on the host, complex, string, the small integers).
inline std::optional<ElementType> ElementTypeOf(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return ElementType::kFloat;
    case DT_DOUBLE: return ElementType::kDouble;
    case DT_HALF: return ElementType::kHalf;
    case DT_BFLOAT16: return ElementType::kBfloat16;
    case DT_INT64: return ElementType::kInt64;
    case DT_BOOL: return ElementType::kBool;
    default: return std::nullopt;
  }
}

}  // namespace tact::gpu
