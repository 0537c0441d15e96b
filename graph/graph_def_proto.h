// GraphDef <-> schema::GraphDef builders and readers, for messages that
// embed a graph (RegisterPartition in schemas/runtime.capnp). Same checks
// and errors as graph_def_codec.h; the reader may throw kj::Exception on a
// malformed message, so call it inside ReadCapnpMessage (tensor_codec.h).
//
// Only wire code includes this: it pulls in the generated capnp headers.
#pragma once

#include <cstddef>

#include "graph/graph_def.h"
#include "schemas/graph.capnp.h"

namespace tact {

Status GraphDefToProto(const GraphDef& def, schema::GraphDef::Builder out);
// `message_words`: the size of the enclosing message, which bounds how many
// nodes an honest message can hold.
StatusOr<GraphDef> GraphDefFromProto(schema::GraphDef::Reader in, size_t message_words);

}  // namespace tact
