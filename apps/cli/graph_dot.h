// GraphViz DOT of a partitioned graph (paper 9: seeing where a graph runs):
// one cluster per device, every node filled with its device's colour, and
// each Send/Recv pair the partitioner inserted drawn as a dashed edge from
// the _Send to its _Recv, labelled with the tensor it carries.
//
//   StatusOr<PartitionResult> parts = Partition(*placed, {});
//   std::string dot = PartitionsToDot(*parts, device_names);
//   // `dot -Tsvg` draws it
//
// What the text holds, so that tools and tests can read it back:
//  - `subgraph "cluster_<i>"` per device i of `devices` that has nodes, its
//    label the device's full name;
//  - each node declared once, inside its device's cluster, as
//    `"<name>" [label="<name>\n<op>", fillcolor="<h s v>"]`; all nodes of a
//    device share one colour and no two devices share one;
//  - data edges `"a" -> "b"`, control edges with `style=dotted`, and only
//    the Send -> Recv edges with `style=dashed` (one per pair).
// Client feeds and fetches (BuildSubgraph's client-terminated _Recv/_Send)
// are ordinary nodes: their other end is the client, not a device.
#pragma once

#include <string>
#include <vector>

#include "placement/partitioner.h"

namespace tact::apps {

// `devices` orders the clusters and colours; a partition whose device is
// not listed is drawn after them.
std::string PartitionsToDot(const PartitionResult& parts, const std::vector<std::string>& devices);

}  // namespace tact::apps
