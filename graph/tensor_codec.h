// Tensor <-> schema::TensorProto (schemas/tensor.capnp), and the one place
// where tact opens a Cap'n Proto message it did not write.
//
//   capnp::MallocMessageBuilder m;
//   TACT_RETURN_IF_ERROR(TensorToProto(t, m.initRoot<schema::TensorProto>()));
//   ...
//   Status s = ReadCapnpMessage(bytes, "tensor", [&](capnp::MessageReader& r) -> Status {
//     TACT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(r.getRoot<schema::TensorProto>()));
//     ...
//   });
//
// Reading never trusts its input. TensorFromProto checks the dtype (a value
// type with a C++ representation), every dimension (>= 0), the element count
// (no int64 overflow) and that the content holds exactly
// numElements * DataTypeSize bytes (or, for DT_STRING, exactly numElements
// strings). The tensor it returns owns a copy of the bytes, so it outlives
// the message. A bool byte other than 0 or 1 reads as true.
//
// Thread-safe: no shared state.
//
// Only wire and codec code includes this header: it pulls in the generated
// capnp headers, which everything else should not pay to compile.
#pragma once

#include <capnp/message.h>

#include <functional>
#include <string_view>

#include "graph/tensor.h"
#include "schemas/tensor.capnp.h"

namespace tact {

// Shapes of more dimensions are rejected on read (TensorFlow's limit too),
// so that a hostile shape cannot make a reader build a huge dims vector.
constexpr int kMaxTensorRank = 254;

// Writes `t` into `out`. InvalidArgument for an uninitialised tensor, one
// of a dtype without bytes (DT_RESOURCE), or one over capnp's 2^29 - 1
// elements / bytes per list (512 MiB); `out` is then partly written.
Status TensorToProto(const Tensor& t, schema::TensorProto::Builder out);
// Reads a tensor. InvalidArgument naming what was wrong (unknown dtype,
// negative or overflowing shape, content of the wrong length). May throw
// kj::Exception on a malformed message: call it inside ReadCapnpMessage.
StatusOr<Tensor> TensorFromProto(schema::TensorProto::Reader in);

// A partial shape: dims of -1 are unknown; unknownRank means no dims.
void ShapeToProto(const PartialTensorShape& shape, schema::TensorShapeProto::Builder out);
// InvalidArgument for a dim below -1, more than kMaxTensorRank dims, or an
// unknown rank that lists dims. Same kj::Exception caveat as above.
StatusOr<PartialTensorShape> ShapeFromProto(schema::TensorShapeProto::Reader in);

// Opens the flat (unpacked) Cap'n Proto message in `bytes` and calls `read`
// on it. Rejects, as DataLoss naming `what`, an empty buffer, a length that
// is not a multiple of 8, bytes after the message, and any kj::Exception the
// capnp reader throws (truncated segments, out-of-bounds pointers, lists
// larger than the buffer, nesting or traversal limits exceeded) while
// `read` runs. `bytes` need not be aligned: it is copied into words first.
//
// The traversal limit is kTraversalFactor times the message's size in words
// (plus a small constant): an honest decoder reads each word about once, so a
// 64 MiB tensor decodes, while a message whose pointers alias one another to
// make the reader walk the same bytes many times (an amplification attack)
// fails quickly.
constexpr uint64_t kTraversalFactor = 8;
constexpr int kNestingLimit = 32;  // our schemas nest at most ~12 deep
Status ReadCapnpMessage(std::string_view bytes, const char* what,
                        const std::function<Status(capnp::MessageReader&)>& read);

// The bytes of a whole message in capnp's flat form (segment table, then the
// segments), as ReadCapnpMessage and the `capnp decode` tool read it.
std::string MessageToBytes(capnp::MessageBuilder& message);

// A tensor as a standalone message (TensorProto root), and back.
StatusOr<std::string> SerializeTensor(const Tensor& t);
StatusOr<Tensor> ParseTensor(std::string_view bytes);

}  // namespace tact
