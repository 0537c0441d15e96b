// NodeDef and GraphDef: the serialisable description of a graph, as the
// client builds it and Session::Extend receives it (schemas/graph.capnp is
// its wire form; graph_def_codec.h converts).
//
// A NodeDef input is "node" (output 0), "node:port", or "^node" for a
// control edge; control inputs come after every data input.
#pragma once

#include <string>
#include <vector>

#include "graph/attr_value.h"

namespace tact {

struct NodeDef {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;  // requested device, possibly partial ("/device:cpu:*"); may be empty
  AttrMap attrs;

  bool operator==(const NodeDef& o) const {
    return name == o.name && op == o.op && inputs == o.inputs && device == o.device &&
           attrs == o.attrs;
  }
};

struct GraphDef {
  std::vector<NodeDef> nodes;
  int64_t version = 1;

  bool operator==(const GraphDef& o) const { return nodes == o.nodes && version == o.version; }
};

// A parsed NodeDef input string.
struct InputRef {
  std::string node;
  int port = 0;          // -1 for a control input
  bool is_control() const { return port < 0; }
};
// Parses "a", "a:2", "^a". InvalidArgument for "", "a:", "a:x", "a:-1", "^".
StatusOr<InputRef> ParseInputRef(const std::string& input);

}  // namespace tact
