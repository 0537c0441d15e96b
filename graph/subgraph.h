// The graph one Run executes (paper 4.2, partial execution): only the
// transitive closure of the fetches and targets, with every fed tensor
// replaced by a _Recv from the client (its producer is cut off and, if
// nothing else needs it, never runs) and every fetch wired into a _Send to
// the client. Feeds and fetches then travel through the step's rendezvous.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tact {

// The client end of feeds and fetches in rendezvous keys.
inline constexpr const char* kClientDevice = "/job:localhost/replica:0/task:0/device:CLIENT:0";

// A tensor name "node:port" ("node" means port 0), parsed.
struct TensorId {
  std::string node;
  int port = 0;
  std::string ToString() const { return node + ":" + std::to_string(port); }
};
StatusOr<TensorId> ParseTensorId(const std::string& name);

struct SubgraphSpec {
  std::vector<std::string> feeds;    // "node:port"
  std::vector<std::string> fetches;  // "node:port"
  std::vector<std::string> targets;  // "node"
  // Where a feed's _Recv and a fetch's _Send are asked to run when the
  // fed or fetched node asks for no device of its own.
  std::string device;
};

// Builds the pruned graph. InvalidArgument / NotFound naming the feed,
// fetch or target for an unknown node, a bad port, or a name given twice.
StatusOr<std::unique_ptr<Graph>> BuildSubgraph(const Graph& full, const SubgraphSpec& spec);

// The "node:port" names that the client-terminated nodes of `graph` carry:
// its feeds for op "_Recv", its fetches for op "_Send"; in node order.
std::vector<std::string> ClientTensors(const GraphDef& graph, const std::string& op);

// The rendezvous keys BuildSubgraph's _Recv/_Send nodes use.
std::string FeedKey(const std::string& device, const std::string& tensor);
std::string FetchKey(const std::string& device, const std::string& tensor);

}  // namespace tact
