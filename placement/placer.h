// Placer: gives every node of a graph a device (paper 3.2.1 and 4.3).
//
//   std::vector<std::string> devices = {"/job:localhost/replica:0/task:0/device:CPU:0",
//                                       "/job:localhost/replica:0/task:0/device:CPU:1"};
//   StatusOr<PlacementReport> r = Place(graph.get(), devices);
//   // every node now has assigned_device(); r->makespan_seconds is the
//   // simulated step time of that placement
//
// 1. Feasible devices of a node: the devices whose type has a kernel for
//    the node's op and dtype attrs, that its requested device (a full or
//    partial name: "/job:worker/task:1", "/device:cpu:*", "/gpu:0"; types
//    match case-insensitively) matches.
// 2. Colocation groups, joined by union-find: a node whose `_class` attr
//    lists "loc:@other" (Scope::ColocateWith sets it) goes with `other`; a
//    node that takes a reference input (Assign, ApplyAdam: a Variable's ref
//    output feeding a Ref(T) input) goes with the node that produces it.
//    A group's feasible devices are the intersection of its members'. A
//    "loc:@" naming no node of the graph is ignored: pruning (paper 4.2)
//    removes nodes that others were colocated with.
// 3. The paper's greedy simulation (simulation.h): nodes in topological
//    order from the sources (Graph::TopologicalOrder); a group is placed
//    when its first member is reached, on the feasible device where that
//    member's estimated completion time (inputs' arrival including
//    transfers from other devices, then the device's first idle gap long
//    enough for it, then its execution time) is earliest; ties go to the
//    device already holding the most bytes of its inputs, then to the
//    lowest index in `devices`. Deterministic. TensorFlow's "generator"
//    heuristic is kept, for every source: a node with no inputs (a Const, a
//    Placeholder, a Variable with the ops that update it) is placed when its
//    first consumer is reached, where that consumer would go, and simulated
//    just before it; alone it would take whichever device is idle at time
//    0 and its consumers would pay a transfer the greedy choice never saw.
//    Where the devices are of several types (CPU and GPU), a group holding
//    a Variable goes to the type on which the graph's work would take the
//    least time (when it has kernels there): the state stays with the
//    work that reads and updates it every step, not with the one-off
//    initializer the walk may meet first.
// 4. The greedy plan against one device, when the devices are of one
//    task: the same walk, putting every group on one device (the first of
//    each device type, where the group can go there), is simulated too, and
//    the greedy plan is kept only when it is faster than the best of those
//    by a margin (PlacerOptions::min_spread_gain).
//
// Cost: O(nodes * feasible devices * log(idle gaps of a device) + edges),
// plus one cheaper walk per device type for step 4, plus the gaps too
// short for a node that its search walks past, after one parse of each
// distinct device name and requested-device string.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "placement/const_copies.h"
#include "placement/cost_model.h"

namespace tact {

// How the placer chooses a device for each colocation group. kGreedy is the
// paper's (3.2.1) and the default; the other two are its baselines, for
// judging it (`tact bench place --runtime`).
enum class PlacementStrategy {
  kGreedy,      // the device where the simulated node finishes first
  kOneDevice,   // the first feasible device of the list
  kRoundRobin,  // the next feasible device after the last group's, in topological order
};

struct PlacerOptions {
  // TensorFlow's meaning: a colocation group that no device can take
  // because of the requested devices is placed as if none had been
  // requested. Kernels are never ignored: a group whose members have no
  // device type with kernels for all of them is still an error.
  bool allow_soft_placement = false;
  // Not owned; must outlive Place(). Null: a static one built for the graph.
  const CostModel* cost_model = nullptr;
  PlacementStrategy strategy = PlacementStrategy::kGreedy;
  // kGreedy on the devices of one task only: the greedy plan is kept when
  // its simulated makespan is below (1 - min_spread_gain) of the best plan
  // that puts everything on one device (each group on the first device of a
  // type where it can go, per type); otherwise that one-device plan is
  // taken, since the costs of spreading that the simulation leaves out (a
  // partition's messages, a Recv's thread wake-up) are worth more than a
  // small simulated gain.
  // 0: the greedy plan whenever it simulates no slower.
  double min_spread_gain = 0.1;
  // The partitioner's PartitionOptions::duplicate_const_max_bytes: a Const
  // it copies to the devices that read it costs no transfer there.
  int64_t duplicate_const_max_bytes = kDuplicateConstMaxBytes;
};

struct PlacementReport {
  // Of the greedy simulation. It simulates a source (below) when its first
  // consumer is reached, so SimulatedMakespan of the same assignment, which
  // keeps topological order, can fill idle gaps in another order and
  // differ a little.
  double makespan_seconds = 0;
  // Every device of the list, by full name, with the nodes placed there
  // (pre-assigned nodes included).
  std::map<std::string, int> nodes_per_device;
  // Bytes of tensors crossing devices, counted once per (tensor, receiving
  // device), as the partitioner's one Recv per pair will move them (a
  // copied Const's are not).
  int64_t bytes_across_devices = 0;
  // Nodes whose requested device was ignored by soft placement.
  std::vector<std::string> soft_placed_nodes;
};

// Gives every node of `graph` an assigned device from `devices` (full
// names, e.g. "/job:localhost/replica:0/task:0/device:CPU:3"). Nodes that
// already have an assigned device keep it (and bring their colocation group
// with them); it must be one of `devices`.
//
// Errors (InvalidArgument unless said): `devices` empty, not full names, or
// repeated; a malformed requested device (naming the node); a pre-assigned
// device not in `devices`, or two members of one group pre-assigned apart;
// a group with no feasible device: the message names the node, its op, the
// whole group with each member's op, requested device and kernel device
// types, and every device with what excludes it. On error nothing is
// assigned.
//
// `graph` is read, not restructured; concurrent use of the same graph is
// not allowed (assignments are written).
StatusOr<PlacementReport> Place(Graph* graph, const std::vector<std::string>& devices,
                                const PlacerOptions& options = {});

// The simulated makespan of the assignment the graph already has (every
// node must have one: FailedPrecondition naming the first that does not),
// by the same simulation Place() runs (with the default Const copies). For
// comparing placements.
StatusOr<double> SimulatedMakespan(const Graph& graph, const CostModel& cost);

}  // namespace tact
