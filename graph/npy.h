// NumPy .npy files <-> Tensors, for `tact run` feeds and fetches and for
// comparing with NumPy. Every numeric dtype NumPy has (float16/32/64,
// int8..64, uint8..64, bool, complex64/128) in C order, little-endian.
//
// A malformed file (bad magic, truncated header or data, an unparsable or
// unsupported dtype, Fortran order, a shape whose size disagrees with the
// bytes) is an InvalidArgument / DataLoss that names the file.
#pragma once

#include <string>

#include "graph/tensor.h"

namespace tact {

StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what = "npy data");
// InvalidArgument for dtypes NumPy cannot hold (string, bfloat16, resource).
StatusOr<std::string> SerializeNpy(const Tensor& t);

StatusOr<Tensor> ReadNpyFile(const std::string& path);
Status WriteNpyFile(const std::string& path, const Tensor& t);

}  // namespace tact
