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
#include <shared_mutex>
#include <set>
#include <string>

#include "actors/step_link.h"

namespace tact {

class MasterLinks {
 public:
  // Called on a sending thread when a tensor could not be sent.
  using OnError = std::function<void(const Status& status)>;
  // Called on a reader thread with each StepDone that arrives, under an
  // InlineHold (actors/inline_unit.h): an actor it tells inline runs once
  // the step's client has its answer (AnswerOnArrival).
  using OnStepDone = std::function<void(WireStepDone done)>;

  // Listens on `host` for the tasks' answers. `client` names this end in
  // the links' handshake (unique per master: a task keeps one link back to
  // each); `key` is the cluster's signing key (wire_auth.h's ClusterKey).
  static StatusOr<std::unique_ptr<MasterLinks>> Start(const std::string& client, const std::string& host,
                                                      const std::string& key);
  ~MasterLinks();  // drops what is queued and joins the threads

  uint16_t port() const;  // where the tasks' StepDones arrive

  // Where StepDones go; set before the first step message is sent. Returns
  // once no reader runs the one it replaces: the master runs on the reader
  // that tells it a StepDone (actors/inline_unit.h), so a session clears
  // this before its actor system ends.
  void SetOnStepDone(OnStepDone on_done);

  // Called on a reader thread with the fetches (by "node:port") of a step
  // whose every StepDone arrived on the links and succeeded.
  using StepFinished = std::function<void(std::map<std::string, Tensor> fetched)>;
  // Lets the reader thread that takes the last of step `step_id`'s
  // `partitions` StepDones answer the step itself, before the StepDones
  // reach the master's actor: a distributed Run's answer then crosses one
  // thread (the reader's) where it crossed three (the reader's, the
  // master's, the client's latch; docs/performance.md). Every StepDone
  // still goes to OnStepDone as well, so the master keeps the step's
  // bookkeeping and alone handles a step that fails: once one of its
  // StepDones has failed, `finished` is dropped unrun. Call before the
  // step's RunSteps leave.
  void AnswerOnArrival(int64_t step_id, int partitions, StepFinished finished);
  // Drops what AnswerOnArrival kept for `step_id`, if it is still there
  // (the master ended the step another way: a lost task, an abort).
  void ForgetStep(int64_t step_id);

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
  std::mutex mu_;  // guards lanes_
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // by task
  // Held shared while a reader calls on_done_, so that SetOnStepDone waits
  // for the calls in flight; readers do not wait for each other.
  std::shared_mutex on_done_mu_;
  OnStepDone on_done_;

  // A step to answer on arrival: the StepDones still to come, and what
  // those that came fetched.
  struct Answering {
    int left = 0;
    std::set<std::string> answered;  // partition handles
    std::map<std::string, Tensor> fetched;
    StepFinished finished;
  };
  std::mutex answering_mu_;  // guards answering_
  std::map<int64_t, Answering> answering_;  // by step id
};

}  // namespace tact
