// GraphDef <-> Cap'n Proto bytes (schemas/graph.capnp), the form a client
// sends to Session::Extend and the form `capnp encode/decode` converts to and
// from text (graph_def_text.h does the same in-process).
//
//   StatusOr<std::string> bytes = SerializeGraphDef(def);
//   StatusOr<GraphDef> back = ParseGraphDef(*bytes);   // *back == def
//
// The round trip is exact: every node, input string, device and attr (every
// AttrValue kind, tensors bitwise) comes back equal. Attrs are written sorted
// by name.
//
// Reading never trusts its input: the reader's traversal and nesting limits
// are set (tensor_codec.h, ReadCapnpMessage), every union discriminant, dtype
// and shape is checked, and nothing a buffer says can crash the process or
// make it allocate much more than the buffer's size. Errors:
//   DataLoss         the bytes are not a well-formed message (empty, not a
//                    multiple of 8 bytes, truncated, out-of-bounds pointers,
//                    limits exceeded, trailing bytes);
//   InvalidArgument  a well-formed message with a value tact cannot hold
//                    (unknown dtype or union kind, negative dims, tensor
//                    content of the wrong length, an attr given twice); the
//                    message names the node (index and name) and the attr.
// Semantic checks (ops exist, inputs resolve) are Graph::FromGraphDef's.
//
// Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>

#include "graph/graph_def.h"

namespace tact {

// InvalidArgument (naming node and attr) for a value the schema cannot
// carry: an uninitialised or resource tensor, an invalid dtype attr, or a
// tensor over 512 MiB.
StatusOr<std::string> SerializeGraphDef(const GraphDef& def);
// `bytes` need not be aligned (it is copied into words first).
StatusOr<GraphDef> ParseGraphDef(std::string_view bytes);

}  // namespace tact
