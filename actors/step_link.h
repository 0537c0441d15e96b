// A step's control messages on the tensor links: the master's RunStep and
// AbortStep to a task, and the task's StepDone back to the master, as
// frames beside the tensors rather than as CAF messages.
//
// Why: a CAF message to another process is handed to the multiplexer
// thread at each end (a thread wake-up on either side, in both
// directions), signed and verified; a frame is written by the thread that
// sends it and read by the link's reader, which hands it straight on. On
// a trivial step this halves the fixed cost of a distributed Run (`tact
// bench sendrecv`'s remote_step_us; docs/performance.md). It also keeps a
// StepDone's large fetches off the CAF connection that carries the health
// pings, as actors/bulk_transfer.h does for what the master sends.
//
// A message travels as a uint8 tensor holding its Cap'n Proto bytes
// (actors/wire.h) under a key of its own that no rendezvous tensor has.
// A StepDone's large fetches go first, each as a frame of its own on the
// same link, so they have arrived when the StepDone is read. The master
// answers the RunSteps it sent through CAF (no link open yet, or a TLS
// cluster) through CAF as before.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "actors/tensor_link.h"
#include "actors/wire.h"

namespace tact {

inline constexpr char kRunStepKey[] = "msg;RunStep";
inline constexpr char kAbortStepKey[] = "msg;AbortStep";
inline constexpr char kStepDoneKey[] = "msg;StepDone";

// Whether a frame's key is one of a step's messages or a StepDone's fetch
// rather than a rendezvous tensor.
bool IsStepMessage(const std::string& key);

// The key a StepDone's fetch `fetch` of partition `handle` travels under.
std::string LinkedFetchKey(const std::string& handle, const std::string& fetch);

// A message as the uint8 tensor a frame carries, and back. Decoding names
// the message and never trusts the bytes (actors/wire.h).
StatusOr<Tensor> MessageTensor(const WireRunStep& m);
StatusOr<Tensor> MessageTensor(const WireAbortStep& m);
StatusOr<Tensor> MessageTensor(const WireStepDone& m);
Status DecodeMessage(const Tensor& t, WireRunStep* m);
Status DecodeMessage(const Tensor& t, WireAbortStep* m);
Status DecodeMessage(const Tensor& t, WireStepDone* m);

// A task's answer to a RunStep that came from `to` on a link: its large
// fetches, then the StepDone, on the link to `to`'s listener at `port`
// (TensorLinks::Send's epoch). A StepDone that cannot be encoded goes
// back as one that fails with the reason.
Status SendStepDone(TensorLinks* links, const LinkSender& to, uint16_t port, uint64_t epoch,
                    WireStepDone done);

// The master's side: puts each StepDone that arrives together with the
// fetches sent ahead of it. Thread-safe.
class StepDoneAssembler {
 public:
  // A frame of a step message from a task: a fetch is kept and nullopt
  // returned; a StepDone is returned whole, its linked fetches among its
  // `fetched` (one that did not arrive fails it, naming the fetch). A
  // frame that cannot be decoded is an error naming its sender.
  StatusOr<std::optional<WireStepDone>> Take(const LinkSender& from, int64_t step_id,
                                             const std::string& key, const Tensor& t);

 private:
  using FetchId = std::tuple<std::string, int64_t, std::string>;  // task, step, key
  // A fetch whose StepDone never came (its link broke between them) would
  // stay forever: past this many, the oldest is dropped.
  static constexpr size_t kMaxWaitingFetches = 4096;

  std::mutex mu_;
  std::map<FetchId, Tensor> fetches_;
  std::deque<FetchId> order_;
};

}  // namespace tact
