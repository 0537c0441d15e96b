// The runtime's messages in the form they cross a process boundary: each
// struct mirrors one message of schemas/runtime.capnp, and Encode/Decode*
// convert with one Cap'n Proto serialisation (tensor bytes copied once into
// the message, once out of it).
//
// Decoding never trusts the bytes: DataLoss for a malformed message,
// InvalidArgument (naming the field) for a well-formed one holding a value
// tact cannot use. Thread-safe: no shared state.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actors/executor.h"
#include "graph/graph_def.h"

namespace tact {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct WireRegisterPartition {
  std::string handle;
  std::string device;
  GraphDef graph;
  uint64_t incarnation = 0;
  std::string container;             // of Variables that name none
  std::vector<std::string> feeds;    // "node:port" every RunStep carries
  std::vector<std::string> fetches;  // "node:port" every StepDone returns, in order
  uint32_t partitions_in_task = 1;   // of the same Run, sharing the task's rendezvous
  // Tensor attrs too large for this message (actors/bulk_transfer.h): each
  // "node;attr" of `graph` holds a placeholder, and its value arrives on
  // the tensor link under that key in the rendezvous of `linked_step`.
  int64_t linked_step = 0;
  std::vector<std::string> linked_attrs;
};

struct WireDeregisterPartition {
  std::string handle;
};

struct WireRunStep {
  int64_t step_id = 0;
  std::string handle;
  NamedTensors feeds;
  bool collect_stats = false;
  // Feeds too large for this message: they arrive on the tensor link, in
  // the step's rendezvous under their feed keys (actors/bulk_transfer.h).
  std::vector<std::string> linked_feeds;
  // Set when it travels on a tensor link (actors/step_link.h): where the
  // StepDone goes back on a link (the sender's address, this port).
  uint16_t reply_port = 0;
  uint64_t reply_epoch = 0;
  // The step of the same partition that must end before this one starts
  // (Partition::Run); 0: none.
  int64_t after_step = 0;
};

struct WireStepDone {
  int64_t step_id = 0;
  std::string handle;
  Status status;
  NamedTensors fetched;
  std::vector<NodeExecStats> stats;
  // Fetches too large for this message, sent on the link before it
  // (actors/step_link.h).
  std::vector<std::string> linked_fetches;
};

struct WireRendezvousTensor {
  int64_t step_id = 0;
  std::string key;
  Tensor tensor;
};

struct WirePartitionRegistered {
  std::string handle;
  std::string device;
  // In the registering process only, never on the wire: the partition
  // actor (a caf::actor), so that a master beside it sends steps straight
  // to it. A master in another process finds it empty and sends through
  // the device actor or the task's link.
  std::any local_partition;
};

struct WireFailure {
  Status status;
};

struct WireAbortStep {
  int64_t step_id = 0;
  Status status;
};

struct WireHealthPing {
  uint64_t sequence = 0;
  int64_t sent_micros = 0;
  uint64_t incarnation = 0;
};

struct WireTaskInfo {
  std::string task;
  uint64_t incarnation = 0;
  std::vector<std::string> devices;
  uint16_t link_port = 0;  // where its tensor links listen; 0: none (TLS)
};

struct WireDescribe {
  std::string payload;  // fresh random bytes
  std::string proof;    // signs `payload` with the cluster's secret
};

struct WireIntroduce {
  std::vector<std::string> forget;  // tasks to forget before connecting
  // task -> its incarnation as the master found it: a peer known in
  // another incarnation is forgotten too (schemas/runtime.capnp).
  std::map<std::string, uint64_t> current;
};

struct WireIntroduced {};

struct WireHello {
  std::string task;
  uint16_t link_port = 0;
  std::string payload;  // fresh random bytes
  std::string proof;    // signs the task, its actor, link_port and payload
};

StatusOr<std::string> Encode(const WireRegisterPartition& m);
StatusOr<std::string> Encode(const WireDeregisterPartition& m);
StatusOr<std::string> Encode(const WireRunStep& m);
StatusOr<std::string> Encode(const WireStepDone& m);
StatusOr<std::string> Encode(const WireRendezvousTensor& m);
StatusOr<std::string> Encode(const WirePartitionRegistered& m);
StatusOr<std::string> Encode(const WireFailure& m);
StatusOr<std::string> Encode(const WireAbortStep& m);
StatusOr<std::string> Encode(const WireHealthPing& m);
StatusOr<std::string> Encode(const WireTaskInfo& m);
StatusOr<std::string> Encode(const WireDescribe& m);
StatusOr<std::string> Encode(const WireIntroduce& m);
StatusOr<std::string> Encode(const WireIntroduced& m);
StatusOr<std::string> Encode(const WireHello& m);

Status Decode(std::string_view bytes, WireRegisterPartition* m);
Status Decode(std::string_view bytes, WireDeregisterPartition* m);
Status Decode(std::string_view bytes, WireRunStep* m);
Status Decode(std::string_view bytes, WireStepDone* m);
Status Decode(std::string_view bytes, WireRendezvousTensor* m);
Status Decode(std::string_view bytes, WirePartitionRegistered* m);
Status Decode(std::string_view bytes, WireFailure* m);
Status Decode(std::string_view bytes, WireAbortStep* m);
Status Decode(std::string_view bytes, WireHealthPing* m);
Status Decode(std::string_view bytes, WireTaskInfo* m);
Status Decode(std::string_view bytes, WireDescribe* m);
Status Decode(std::string_view bytes, WireIntroduce* m);
Status Decode(std::string_view bytes, WireIntroduced* m);
Status Decode(std::string_view bytes, WireHello* m);

}  // namespace tact
