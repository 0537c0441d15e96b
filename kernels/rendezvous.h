// Rendezvous: where a Send leaves a tensor and a Recv picks it up, matched
// by key (paper 3.2: "the Send and Recv nodes coordinate to transfer data
// across devices"; 4.2: feeds and fetches use the same mechanism).
//
// One Rendezvous serves one step. Send never blocks; RecvAsync calls its
// callback when the tensor is there (possibly at once, on the caller's
// thread, or later on the sender's). After StartAbort every pending and
// future Recv fails with the abort status, so no step waits forever.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "graph/tensor.h"

namespace tact {

class Rendezvous {
 public:
  using DoneCallback = std::function<void(const Status& status, const Tensor& tensor)>;
  using SentCallback = std::function<void(const Status& status)>;
  virtual ~Rendezvous() = default;

  // AlreadyExists if `key` was sent before in this rendezvous; the abort
  // status once aborted.
  virtual Status Send(const std::string& key, const Tensor& tensor) = 0;
  // The _Send kernel's form: `done` runs exactly once, when the tensor has
  // been handed on (here: at once, with Send's status; a runtime whose
  // Send endpoints are actors answers when the actor has taken it).
  virtual void SendAsync(const std::string& key, const Tensor& tensor, SentCallback done) {
    done(Send(key, tensor));
  }
  // `done` runs exactly once. A second Recv of one key fails with
  // AlreadyExists (each key has one receiver).
  virtual void RecvAsync(const std::string& key, DoneCallback done) = 0;
  // Fails every waiting and future Recv and Send with `status` (not OK).
  virtual void StartAbort(const Status& status) = 0;

  // Kernels that wait on something else than the rendezvous (a queue's
  // Dequeue) are told of the step's abort here, so that an aborted step
  // does not wait for ever: `on_abort` runs once, with the abort status,
  // when the step is aborted (at once, on this thread, if it already is),
  // unless it was removed first. Returns the token to remove it with.
  using AbortCallback = std::function<void(const Status& status)>;
  virtual uint64_t AddAbortCallback(AbortCallback on_abort) = 0;
  // After this returns, the callback does not run (it may be running now).
  virtual void RemoveAbortCallback(uint64_t token) = 0;

  // Blocks until the tensor for `key` arrives or the rendezvous is aborted.
  // For clients and tests; kernels use RecvAsync.
  StatusOr<Tensor> Recv(const std::string& key);
  // For a step that is over, whose Sends have all run: the tensor for
  // `key`, or, if it was never sent, `if_absent` (not OK), with which the
  // rendezvous is aborted. Never waits for a Send.
  StatusOr<Tensor> RecvSent(const std::string& key, const Status& if_absent);
};

// The in-process rendezvous: tensors are handed over by reference, never
// copied.
std::shared_ptr<Rendezvous> NewLocalRendezvous();

// "send_device;incarnation;recv_device;tensor_name" (TensorFlow's layout, so
// that keys read the same in traces). The incarnation tells a tensor sent
// before a restart of the sending task from one sent after.
std::string RendezvousKey(const std::string& send_device, uint64_t send_incarnation,
                          const std::string& recv_device, const std::string& tensor_name);

// Inside a loop a _Send or _Recv appends ";<frame>:<iteration>" to its key
// (OpKernelContext::frame_iter): {the key of the nodes, that tag}; the tag
// is empty for a key of the root frame.
std::pair<std::string_view, std::string_view> SplitFrameIter(std::string_view key);

}  // namespace tact
