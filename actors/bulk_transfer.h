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
// The master's sends leave from a thread per task, so that a task that
// does not answer (a connect to a dead host can take minutes) never holds
// the master's actor or another task's transfers.
//
// A tensor that arrives on a link is delivered into the task's rendezvous
// (actors/rendezvous_mgr.h) under (step id, key), whichever of it and its
// control message comes first. A registration's tensors use a rendezvous
// of their own, under a negative id that no step has.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_def.h"

namespace tact {

class TensorLinks;

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

// The master's sending side: one thread and queue per task it sends to,
// over its own outgoing links.
class BulkSender {
 public:
  // Called on a sending thread when a tensor could not be sent.
  using OnError = std::function<void(const Status& status)>;

  // `client` names the sending side in the links' handshake; `key` is the
  // cluster's signing key (wire_auth.h's ClusterKey).
  BulkSender(const std::string& client, const std::string& key);
  ~BulkSender();  // drops what is queued and joins the threads

  // Queues `tensor` (a reference: its bytes are not copied) for the
  // rendezvous of `step_id` in `task`, whose links listen at host:port, on
  // the link of `epoch` (TensorLinks::Send). Tensors for one task leave in
  // the order queued.
  void Send(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch, int64_t step_id,
            const std::string& key, const Tensor& tensor, OnError on_error);

 private:
  struct Lane;
  std::unique_ptr<TensorLinks> links_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // by task
};

}  // namespace tact
