// Colocation groups and their feasible devices (paper 4.3): the part of
// placement that decides where a node MAY go; placer.cc then decides where
// it goes.
//
// A node's feasible devices: those whose type has a kernel for it
// (KernelRegistry::HasKernel) and that its requested device matches. Nodes
// joined by a colocation hint (`_class` = ["loc:@other"]) or a reference
// edge (a Ref(T) input) form one group, by union-find; the group's feasible
// set is the intersection of its members'.
//
// Internal to placement/. The result refers to nodes by id and to devices by
// index into the DeviceList it was built with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "placement/device_list.h"
#include "placement/flat_graph.h"

namespace tact {

struct ColocationGroups {
  std::vector<int> group_of;  // by node id; -1 for an id with no live node
  int num_groups = 0;
  int words = 0;                   // per device set
  std::vector<uint64_t> feasible;  // num_groups sets of `words` words
  // By group: the device a member was already assigned (Place keeps it),
  // or -1.
  std::vector<int> assigned;
  // Members whose requested device soft placement ignored.
  std::vector<std::string> soft_placed_nodes;

  const uint64_t* Feasible(int group) const { return &feasible[size_t(group) * words]; }
};

// Errors (InvalidArgument): a malformed requested device or `_class` entry
// naming the node; an assigned device not in `devices`; members of one
// group assigned to different devices; a group with no feasible device
// (without soft placement, or with it when no device has kernels for every
// member): the message names the node that emptied the intersection, its
// op, every member of its group with its op, requested device and kernel
// device types, and each device with what excludes it.
// `flat` is FlatGraph::Gather(graph): the reference edges come from it.
StatusOr<ColocationGroups> BuildColocationGroups(const Graph& graph, const FlatGraph& flat,
                                                 const DeviceList& devices,
                                                 bool allow_soft_placement);

}  // namespace tact
