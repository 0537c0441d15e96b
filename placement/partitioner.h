// Partitioner: splits a placed graph into one subgraph per device (paper
// 3.2.2, Figure 4). Every data edge whose ends sit on two devices becomes a
// _Send on the source device and a _Recv on the destination, and the
// executors of the partitions meet in the step's rendezvous:
//
//   PartitionOptions opts;
//   opts.incarnations = {{"/job:w/replica:0/task:0/device:CPU:0", 7}};
//   StatusOr<PartitionResult> parts = Partition(*placed_graph, opts);
//   for (const auto& [device, def] : parts->partitions) ...register def on device...
//
// What the partitions hold:
//  - every node of the graph, once, in the partition of its assigned device,
//    with NodeDef::device set to that full name; the node keeps its name,
//    op and attrs, so fetches and feeds (the client-terminated _Send/_Recv
//    BuildSubgraph inserted) are where they were;
//  - ONE _Send/_Recv pair per (tensor, destination device), whatever the
//    number of consumers there ("we canonicalize all users of a particular
//    tensor on a particular device to use a single Receive node", Figure
//    4), so the tensor crosses and occupies the destination's memory once;
//    and one pair per (node, destination device) for control
//    edges, carried by a scalar int32 Const that runs after the control
//    source on its device and whose _Recv is the control input of the
//    consumers;
//  - no pair for a small Const (no inputs, a value of at most
//    duplicate_const_max_bytes) read on another device of its type: the
//    destination gets a copy of it, "<src>/_dup_<d>", made once per device;
//  - each pair with its own tensor_name ("edge_<k>_<src>" for output 0,
//    "edge_<k>_<src>:<port>", "edge_<k>_^<src>" for a control edge; k counts
//    pairs), so its rendezvous key send;incarnation;recv;name is unique in a
//    step even beside feeds and fetches (whose keys name the client device).
// Node names the partitioner adds live under the source node's name:
// "<src>/_send_<port>_<k>", "<src>/_recv_<port>_<k>", "<src>/_ctrl_<k>" (a
// control edge's dummy), "<src>/_truncate16_<port>" and
// "<src>/_expand16_<port>_<k>" (lossy transfer); a trailing "_" is added
// while a name is taken by a node of the graph.
//
// Ref edges never cross: a Variable's ref can be dereferenced on another
// device (the _Send reads the value, like any reader) but not updated
// there, so an Assign on one device fed the ref of a Variable on another is
// an error; the placer's colocation groups keep them together.
//
// Control flow (Switch/Merge, frames: paper 4.4): edges in a loop are split
// like any other, and a loop whose nodes span devices gets the paper's
// distributed loop control in each partition (placement/loop_control.h).
//
// Partition runs in time linear in nodes + edges; schedule_recvs adds a
// topological walk of the whole graph (also linear). Thread-safe on a const
// graph; an error leaves nothing behind (the result is all or nothing).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "graph/graph.h"
#include "placement/const_copies.h"

namespace tact {

struct PartitionOptions {
  // The incarnation of each device (full name), the send_device_incarnation
  // of its _Send/_Recv pairs. A device not listed has incarnation 0.
  std::map<std::string, uint64_t> incarnations;

  // Paper 5.2: an ASAP/ALAP calculation, then control edges that delay the
  // start of each Recv until just before its results are needed, so a
  // received tensor (and what its consumers compute from it) does not sit
  // in the destination's memory for the whole step. See
  // recv_schedule.h for the levels, why they are depths, and why the added
  // edges can never deadlock.
  bool schedule_recvs = false;
  // How many levels before its first consumer's ALAP level a Recv may
  // start: 0 gates it on a node of the level just before its consumer; 1
  // (the default) on one a level earlier, to hide a transfer's latency.
  int recv_lead_levels = 1;

  // Paper 5.5: float32 tensors crossing devices travel as their upper 16
  // bits (_TruncateToUpper16 before the _Send, _ExpandFromUpper16 after the
  // _Recv; the low 16 mantissa bits arrive as zeros). For every pair of
  // devices when lossy_float_transfer is set, and otherwise for the
  // (send device, recv device) pairs listed, in that direction only.
  // Other dtypes and control edges are never lossy, nor are the client's
  // own feeds and fetches (BuildSubgraph's _Recv/_Send, not pairs made here).
  bool lossy_float_transfer = false;
  std::set<std::pair<std::string, std::string>> lossy_float_transfer_pairs;

  // A Const of at most this many bytes that is read on another device of
  // the same type is copied into that device's partition instead of being
  // sent there every step. A transfer of a shape or a scalar costs a
  // message each step and makes the reader's partition wait for the Const's
  // (two data-parallel towers that share a CSE-merged Const: the second
  // tower could not start before the first one's task had). A copy costs
  // its bytes once. 0: every Const is sent. The placer's simulation costs
  // the same copies (PlacerOptions::duplicate_const_max_bytes).
  int64_t duplicate_const_max_bytes = kDuplicateConstMaxBytes;
};

struct PartitionResult {
  // By device full name; each NodeDef's device is that name.
  std::map<std::string, GraphDef> partitions;
  int send_recv_pairs = 0;  // data and control pairs together
  int control_pairs = 0;    // of which carry control edges
  int lossy_pairs = 0;      // of which carry float32 as 16 bits
  int scheduled_recvs = 0;  // Recvs given a control edge by schedule_recvs
  int duplicated_consts = 0;  // copies of Consts made instead of pairs
};

// Splits `graph`, every node of which must have an assigned device.
// InvalidArgument naming the node for one without, and naming both ends and
// both devices for a ref-typed edge that crosses devices.
StatusOr<PartitionResult> Partition(const Graph& graph, const PartitionOptions& options);

}  // namespace tact
