// A GraphDef in Cap'n Proto's text form: the same text that
//   capnp encode schemas/graph.capnp GraphDef < graph.txt > graph.bin
//   capnp decode schemas/graph.capnp GraphDef < graph.bin
// read and write, converted in-process.
//
//   (nodes = [(name = "x", op = "Placeholder",
//              attrs = [(name = "dtype", value = (type = 1))])],
//    version = 1)
//
// The schema comes from the generated code (capnp compiles the full schema
// into schemas/graph.capnp.c++), so no .capnp file is read at run time and
// the text form works wherever the binary does.
//
// Text is exact for everything but the sign of a float -0.0 attr, which
// capnp's text parser reads as +0.0 (equal under ==; tensors are Data, so
// their bytes are exact).
//
// Thread-safe: no shared state.
#pragma once

#include <string>

#include "graph/graph_def.h"

namespace tact {

// Pretty-printed text (one field per line); InvalidArgument as
// SerializeGraphDef.
StatusOr<std::string> GraphDefToText(const GraphDef& def);
// InvalidArgument, with capnp's description, for text that does not parse
// against the schema, or that nests brackets more than 64 deep (capnp's
// parser would overflow the stack); then ParseGraphDef's checks apply.
StatusOr<GraphDef> GraphDefFromText(const std::string& text);

}  // namespace tact
