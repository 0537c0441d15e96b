// The master's end of the tasks' tensor links (actors/tensor_link.h): it
// sends them large tensors (actors/bulk_transfer.h) and step messages
// (actors/step_link.h), and listens for their StepDones.
//
// Large tensors and connects leave from a thread per task, so that a task
// that does not answer (a connect to a dead host can take minutes) never
// holds the master's actor or another task's transfers. Step messages,
// and a step's feeds, leave from the caller's thread at once on a link
// already open: the master's actor never waits on a socket.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actors/step_link.h"

namespace tact {

class MasterLinks {
 public:
  // Called on a sending thread when a tensor could not be sent.
  using OnError = std::function<void(const Status& status)>;
  // Called on a reader thread with each StepDone that arrives.
  using OnStepDone = std::function<void(WireStepDone done)>;

  // Listens on `host` for the tasks' answers. `client` names this end in
  // the links' handshake (unique per master: a task keeps one link back to
  // each); `key` is the cluster's signing key (wire_auth.h's ClusterKey).
  static StatusOr<std::unique_ptr<MasterLinks>> Start(const std::string& client, const std::string& host,
                                                      const std::string& key);
  ~MasterLinks();  // drops what is queued and joins the threads

  uint16_t port() const;  // where the tasks' StepDones arrive

  // Where StepDones go; set before the first step message is sent.
  void SetOnStepDone(OnStepDone on_done);

  // Queues `tensor` (a reference: its bytes are not copied) for the
  // rendezvous of `step_id` in `task`, whose links listen at host:port, on
  // the link of `epoch` (TensorLinks::Send). Tensors for one task leave in
  // the order queued.
  void Send(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch, int64_t step_id,
            const std::string& key, const Tensor& tensor, OnError on_error);
  // Opens the link to `task` in the background, so that step messages can
  // take it; a failure is left for the next Send to report.
  void Connect(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch);
  // Sends a step message, or a tensor, on the open link to `task` from
  // this thread, without waiting: false (nothing sent) when none is open
  // for this port and epoch.
  bool SendNow(const std::string& task, uint16_t port, uint64_t epoch, int64_t step_id,
               const std::string& key, const Tensor& message);

 private:
  struct Job;
  struct Lane;
  MasterLinks() = default;
  void Queue(const std::string& task, Job job);
  void Arrived(const LinkSender& from, int64_t step_id, const std::string& key, const Tensor& t);

  std::unique_ptr<TensorLinks> links_;
  StepDoneAssembler assembler_;
  std::mutex mu_;  // guards lanes_ and on_done_
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // by task
  OnStepDone on_done_;
};

}  // namespace tact
