// NumPy .npy files <-> Tensors, for `tact run` feeds and fetches and for
// comparing with NumPy. Every numeric dtype NumPy has (float16/32/64,
// int8..64, uint8..64, bool, complex64/128) in C order, little-endian, and
// strings: NumPy's fixed-width bytes ('S') and unicode ('U', read as UTF-8)
// are DT_STRING; a string tensor is written as 'S' as wide as its longest
// string. As in NumPy, trailing NULs are padding, not part of a string.
//
// A malformed file (bad magic, truncated header or data, an unparsable or
// unsupported dtype, Fortran order, a shape whose size disagrees with the
// bytes) is an InvalidArgument / DataLoss that names the file.
#pragma once

#include <string>

#include "graph/tensor.h"

namespace tact {

StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what = "npy data");
// False for the dtypes NumPy cannot hold (bfloat16, resource).
bool HasNpyForm(DataType t);
// InvalidArgument for a dtype without an .npy form.
StatusOr<std::string> SerializeNpy(const Tensor& t);

StatusOr<Tensor> ReadNpyFile(const std::string& path);
Status WriteNpyFile(const std::string& path, const Tensor& t);

}  // namespace tact
