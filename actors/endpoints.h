// The Send and Recv endpoints of a task's partitions, as actors (paper 3.2:
// "the Send and Recv nodes coordinate to transfer data across devices").
//
// Each _Send and _Recv that partitioning put between two devices is, in
// the task that runs it, an actor addressed by its rendezvous key: spawned
// when a partition holding it is registered, living across steps, and
// ending when the last partition holding it is deregistered (or with the
// device actor that spawned it). A partition registered later for another
// signature of the same graph holds the same keys and shares their
// endpoints (a step runs one partition per device).
//
// A Send kernel hands its tensor to its Send endpoint, which gives it to
// the Recv endpoint of the same key: in this process as a
// WireRendezvousTensor holding the refcounted tensor (no byte copied), in
// another task through `remote` (a tensor link, whose reader Delivers it
// to the Recv endpoint there as a LinkFrame). A Recv kernel asks its
// endpoint for the step's tensor, and the endpoint's reply completes it.
// A WireAbortStep fails a step's waiting and future Recvs and drops what
// was held for it. actors/messages.h shows the messages.
//
// The endpoints run on the thread that talks to them (actors/inline_unit.h),
// so a Send, a Recv or a tensor from a link costs no thread hand-off, as
// with the rendezvous table they replace.
//
// The client's feeds and fetches are not endpoints: the partition puts and
// takes them in the step's table (actors/rendezvous_mgr.h), as do the
// master's linked tensors.
//
// Thread-safe.
#pragma once

#include <caf/fwd.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph_def.h"
#include "kernels/rendezvous.h"

namespace tact {

class Endpoints {
 public:
  // Ships a tensor to the Recv endpoint of `key` in task `recv_task`.
  using RemoteSend = std::function<Status(const std::string& recv_task, int64_t step_id,
                                          const std::string& key, const Tensor& tensor)>;

  // Every Recv endpoint is in this process.
  Endpoints();
  // The endpoints of task `local_task` ("/job:J/replica:R/task:T"): a Send
  // whose key's receiving device is in another task goes through `remote`.
  Endpoints(std::string local_task, RemoteSend remote);
  ~Endpoints();
  Endpoints(const Endpoints&) = delete;
  Endpoints& operator=(const Endpoints&) = delete;

  // The rendezvous keys of one graph's endpoints, by kind.
  struct Keys {
    std::vector<std::string> sends, recvs;
  };

  // Spawns, linked to `owner` (the device actor registering `graph`), an
  // endpoint for each of `graph`'s _Send and _Recv nodes between devices
  // that has none here yet, and returns their keys for Remove.
  // InvalidArgument naming the node if its attrs do not make a key; then
  // nothing is added.
  StatusOr<Keys> Add(caf::event_based_actor* owner, const GraphDef& graph);
  // Undoes one Add: ends each of its endpoints that no other Add holds. A
  // Recv still waiting there is cancelled, naming its key. Call it when no
  // step of the graph runs any more: a step's Send or Recv finds no
  // endpoint once it has ended.
  void Remove(const Keys& keys);

  // The kernels' side. Each returns false, and leaves `done` untouched
  // (not moved from), when `key` has no endpoint of that kind here.
  bool SendAsync(int64_t step_id, const std::string& key, const Tensor& tensor,
                 Rendezvous::SentCallback&& done);
  bool RecvAsync(int64_t step_id, const std::string& key, Rendezvous::DoneCallback&& done);

  // A tensor from another task's Send endpoint, for the Recv endpoint of
  // `key`; false when there is none here.
  bool Deliver(int64_t step_id, const std::string& key, const Tensor& tensor);

  // Fails the step's waiting and future Recvs at every Recv endpoint here
  // with `status`, and drops the tensors they hold for it.
  void Abort(int64_t step_id, const Status& status);

  // Endpoints of each kind here (for tests).
  size_t sends() const;
  size_t recvs() const;

 private:
  struct Table;  // the keys' actors; a Send endpoint finds its Recv endpoint here
  std::shared_ptr<Table> table_;
};

}  // namespace tact
