// Large tensors from the master to a task travel on the task's tensor link,
// never inside a CAF message: a registration's big tensor attrs (a Const's
// value) and a step's big feeds.
//
// Why: the master reaches a task over one CAF connection, which also carries
// the health pings and every control message (RegisterPartition, RunStep,
// StepDone, AbortStep). A 64 MiB Const inside a RegisterPartition was
// encoded and signed on the master's multiplexer thread, written, then
// verified and decoded on the task's, about 1 s at each end with two busy
// processes beside them: the pings behind it missed their 2 s deadline and
// a healthy task was declared lost (`tact bench sendrecv --bytes 67108864`
// failed in most runs on a loaded machine). On the link the bytes go out
// of the tensor with one writev and are read straight into the receiving
// tensor, on threads of their own, so the CAF connection only ever carries
// small messages and a ping waits behind nothing. Chunking the tensors
// into small CAF messages would have kept the interleaving but also CAF's
// copies and thread hops (a tenth of a socket's bandwidth).
//
// The master's sends leave from a thread per task (actors/master_links.h).
//
// A tensor that arrives on a link is delivered into the task's rendezvous
// (actors/rendezvous_mgr.h) under (step id, key), whichever of it and its
// control message comes first. A registration's tensors use a rendezvous
// of their own, under a negative id that no step has.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_def.h"

namespace tact {

// Below this, a tensor rides in its control message: one message costs
// less than a message and a frame, and CAF writes it in well under a
// millisecond, so nothing waits behind it for long.
inline constexpr size_t kBulkTensorBytes = size_t{64} << 10;

// Whether `t` goes on a link (when the task has one).
bool TravelsByLink(const Tensor& t);

// The rendezvous key of a registration's tensor attr.
std::string LinkedAttrKey(const std::string& node, const std::string& attr);

// Replaces every tensor attr of `graph` that TravelsByLink with a scalar
// placeholder of its dtype, and returns them by LinkedAttrKey.
std::vector<std::pair<std::string, Tensor>> TakeLinkedAttrs(GraphDef* graph);

// Puts `value` back in `graph` at `key` (a LinkedAttrKey). InvalidArgument
// naming the key if the graph has no tensor attr there, or if `value`'s
// dtype is not the placeholder's.
Status PutLinkedAttr(GraphDef* graph, const std::string& key, const Tensor& value);

}  // namespace tact
