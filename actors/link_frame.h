// A tensor frame on a tensor link (actors/tensor_link.h): one Cap'n Proto
// message of schemas/runtime.capnp's LinkFrame in the stream framing
// (segment count and sizes, then the segments), whose tensor bytes are
// segments of their own (but for small tensors: kMaxInlineLinkBytes).
//
// Why segments of their own: the bytes are written from the tensor's
// buffer (Cap'n Proto references it as external data; no copy into the
// message) with one gathered write, and read straight into the receiving
// tensor once segment 0 has said its dtype and shape. So the wire is
// Cap'n Proto without giving back the zero-copy path the links were
// built for.
//
// Reading trusts nothing: the segment count and every segment's size must
// be exactly what the shape and dtype of segment 0 make them, and every
// chunk must point at its own segment; anything else is InvalidArgument
// naming what was wrong, before any tensor memory is written.
//
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <sys/uio.h>
#include <vector>

#include "graph/tensor.h"

namespace tact {

// Where a lent tensor's bytes are in the sending process (LentBytes).
struct LentBytes {
  uint64_t id = 0;  // 0: not lent
  uint64_t address = 0;
  uint64_t token_address = 0;
};

// The largest key and rank a frame may carry.
constexpr size_t kMaxLinkKeyBytes = size_t{1} << 16;
constexpr int kMaxLinkRank = 32;
// A tensor of at most this many bytes travels inside segment 0 (one copy):
// a segment of its own costs more than copying it. The arena's bookkeeping
// of an external segment, on both ends, measured about 3 us a hop on a
// 4-byte tensor's round trip.
constexpr size_t kMaxInlineLinkBytes = 1024;

// A frame ready to write: `parts` (for writev) point into `head` (the
// segment table and segment 0), the tensor's buffer and `padding`, so they
// are valid while this object and the tensor live and neither moves.
struct EncodedLinkFrame {
  std::string head;
  std::vector<iovec> parts;
};

// Whether tensors of `dtype` have flat bytes a frame can carry (not
// strings, not resources).
bool LinkFrameCarries(DataType dtype);

// Encodes `tensor` for `key` of step `step_id`; with lent.id != 0 the
// bytes stay behind (the receiver copies them from lent.address).
// InvalidArgument for a key or rank over the limits or a dtype whose
// tensors have no flat bytes (strings travel through CAF).
StatusOr<std::unique_ptr<EncodedLinkFrame>> EncodeLinkFrame(int64_t step_id, const std::string& key,
                                                            const Tensor& tensor, const LentBytes& lent);

// What a frame said. A lent tensor comes back allocated but not filled:
// its bytes are the caller's to copy from the sender.
struct DecodedLinkFrame {
  int64_t step_id = 0;
  std::string key;
  Tensor tensor;
  LentBytes lent;
};

// Reads exactly n bytes into dst; false when the stream ended.
using ReadExact = std::function<bool(void* dst, size_t n)>;

// Reads one frame. Cancelled when the stream ends (between frames or in
// one); InvalidArgument naming the inconsistency when the bytes are not a
// well-formed frame, after which the stream's position is undefined.
Status ReadLinkFrame(const ReadExact& read, DecodedLinkFrame* out);

}  // namespace tact
