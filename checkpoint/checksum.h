// The checksum of a variable's value, stored beside it in the checkpoint so
// that a reader can tell a flipped or lost byte from the value that was saved.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/tensor.h"

namespace tact {

// XXH3-64 (seed 0) of the element bytes in row-major order, as this
// little-endian host holds them; for DT_STRING, of each element as its length
// (uint64, little-endian) followed by its bytes, so that {"ab", ""} and
// {"a", "b"} differ. Dtype and shape are not hashed: they are checked against
// the graph's variables instead. Runs at memory speed (tens of GB/s), small
// beside the write it protects.
uint64_t TensorChecksum(const Tensor& t);

// A run of bytes in a file.
struct ByteExtent {
  int64_t offset = 0;
  int64_t length = 0;
};

// XXH3-64 of the bytes of `extents` of the file `path`, one after another.
// NotFound / DataLoss naming the file if it cannot be opened or an extent
// read in full.
StatusOr<uint64_t> ExtentsChecksum(const std::string& path, const std::vector<ByteExtent>& extents);

// 16 lower-case hex digits, as `tact ckpt show` and the manifest print it.
std::string ChecksumHex(uint64_t checksum);

}  // namespace tact
