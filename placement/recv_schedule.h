// RecvSchedule: the ASAP/ALAP analysis of paper 5.2, used by the
// partitioner's schedule_recvs option to delay each _Recv "until just
// before [its] results are needed", so received tensors and what is
// computed from them do not occupy the destination device for the whole
// step.
//
// Levels are topological depths over the whole placed graph, before it is
// split (cross-device edges count like any other):
//   ASAP(n) = 0 for a node without inputs, else 1 + max ASAP of its inputs;
//   ALAP(n) = D for a node without consumers (D = max ASAP), else
//             min ALAP of its consumers - 1.
// Why depths and not estimated times: the partitioner runs on graphs whose
// shapes may be unknown and before any step was measured; a depth needs
// nothing but the graph, is exact integer arithmetic (the safety argument
// below needs strict inequalities), and orders a chain of similar ops the
// way times would. A cost model can later weight levels without changing
// the interface.
//
// A Recv whose earliest consumer on its device has ALAP level `need` is made
// to wait for the gate: among the nodes of the destination device whose
// ALAP level is <= need - 1 - lead, the one with the greatest ASAP level
// (the one that cannot run before that many levels of the step are done,
// so the Recv does not start early). Why this never deadlocks:
// every descendant of the Recv has ALAP >= need, so the gate is never one
// of them; numbering nodes 8*ALAP, a Send 8*ALAP(src)+2 and its truncation
// or control dummy +1, a Recv 8*need-2 and its expansion 8*need-1, every
// edge of the partitioned graphs, Send->Recv and the gates' control edges
// included, goes to a strictly larger number. So the union of the
// partitions stays acyclic, and since a Send never blocks (the rendezvous
// buffers), every step still completes.
//
// Immutable after Compute; thread-safe for const use.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace tact {

class RecvSchedule {
 public:
  // Levels of every node of `graph`. node_device[id] is the index in
  // [0, num_devices) of node id's device (ignored for removed ids).
  // InvalidArgument if the graph has a cycle (outside ops that allow one).
  static StatusOr<RecvSchedule> Compute(const Graph& graph, const std::vector<int>& node_device,
                                        int num_devices);

  int asap(int node_id) const { return asap_[node_id]; }
  int alap(int node_id) const { return alap_[node_id]; }
  int depth() const { return depth_; }

  // The node id a Recv on `device` should wait for, given its consumers'
  // earliest ALAP level `need`; -1 when no node of the device qualifies or
  // the best one's ASAP level is <= `available` (the level at which the
  // tensor can be there anyway: waiting for it would delay nothing).
  int Gate(int device, int need, int lead, int available) const;

 private:
  std::vector<int> asap_, alap_;  // by node id
  int depth_ = 0;
  struct Level {
    int alap;  // a level at which device d has nodes
    int gate;  // among d's nodes of ALAP <= alap, the one of greatest ASAP
               // (lowest id on ties)
  };
  std::vector<std::vector<Level>> latest_;  // by device, by increasing alap
};

}  // namespace tact
