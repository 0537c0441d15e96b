# Every message between tact's actors when it crosses a process boundary
# (inside a process the same messages travel as C++ objects holding
# refcounted tensors, never copied). actors/wire.h converts.
@0x96f6b05626daf36a;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("tact::schema");

using Graph = import "graph.capnp";
using Tensor = import "tensor.capnp";

struct StatusProto {
  code @0 :Int32;            # tact::Code
  message @1 :Text;
}

struct NamedTensor {
  name @0 :Text;             # "node:port" for feeds and fetches
  tensor @1 :Tensor.TensorProto;
}

# Master -> worker: hold this partition's graph, run it on `device`.
struct RegisterPartition {
  handle @0 :Text;           # the master's name for the partition
  device @1 :Text;
  graph @2 :Graph.GraphDef;
  incarnation @3 :UInt64;    # of the master, for rendezvous keys after restarts
  container @4 :Text;        # of Variables that name none (the session's)
  feeds @5 :List(Text);      # "node:port" that every RunStep must carry
  fetches @6 :List(Text);    # "node:port" that every StepDone returns, in order
  partitionsInTask @7 :UInt32;  # partitions of the same Run in this task (they share its rendezvous)
  # Tensor attrs too large to travel here (actors/bulk_transfer.h): each
  # "node;attr" holds a placeholder in `graph`, and its value arrives on
  # the tensor link, under that key, in the rendezvous of `linkedStep`.
  linkedStep @8 :Int64;
  linkedAttrs @9 :List(Text);
}

# Master -> partition: run one step.
struct RunStep {
  stepId @0 :Int64;
  handle @1 :Text;
  feeds @2 :List(NamedTensor);
  collectStats @3 :Bool;     # fill StepDone.stats (clock reads cost more than a cheap node)
  linkedFeeds @4 :List(Text);  # feeds that arrive on the tensor link instead, under their feed keys
  # Set when it came on a tensor link (actors/step_link.h): the StepDone goes
  # back on a link to the sender's address, this port, this epoch.
  replyPort @5 :UInt16;
  replyEpoch @6 :UInt64;
  # A step of the same partition that must end here before this one starts
  # (actors/partition.h); 0: none.
  afterStep @7 :Int64;
}

struct NodeStats {
  # startNs and endNs: the system clock's ns since the Unix epoch
  # (actors/step_stats.h).
  node @0 :Text;
  startNs @1 :Int64;
  endNs @2 :Int64;
  device @3 :Text;
  outputBytes @4 :List(Int64);  # per output; -1 for one not produced
}

# Partition -> master: the step finished (or failed).
struct StepDone {
  stepId @0 :Int64;
  handle @1 :Text;
  status @2 :StatusProto;
  fetched @3 :List(NamedTensor);
  stats @4 :List(NodeStats);
  linkedFetches @5 :List(Text);  # fetches that arrived on the link before it, under LinkedFetchKey
}

# Send endpoint -> Recv endpoint: the tensor for one rendezvous key.
struct RendezvousTensor {
  stepId @0 :Int64;
  key @1 :Text;
  tensor @2 :Tensor.TensorProto;   # unset when dead
  dead @3 :Bool;   # the Send's input was dead (control flow): no tensor
}

# Send endpoint -> Recv endpoint between processes, on a tensor link
# (actors/link_frame.h): the tensor for one rendezvous key. On the link
# it is one message in Cap'n Proto's stream framing (the segment table,
# then the segments) whose tensor bytes are segments of their own: a
# sender writes them from the tensor's buffer and a receiver reads them
# into the Recv's, each with no copy of its own. Segment 0 holds the
# rest; segment k (k >= 1) holds chunk k-1, bytes [(k-1) * 256 MiB, ...),
# padded with zeros to a whole word. A tensor of at most 1 KiB is the one
# chunk inside segment 0 instead (copying it costs less).
struct LinkFrame {
  stepId @0 :Int64;
  key @1 :Text;
  dtype @2 :Int32;           # tact::DataType (TensorFlow's numbering)
  shape @3 :List(Int64);     # fully known
  chunks @4 :List(Data);     # the bytes, 256 MiB a chunk (a Data holds < 512 MiB); none when lent
  lent @5 :LentBytes;        # set when the bytes stay in the sender's memory
  dead @6 :Bool;             # the Send's input was dead (control flow): dtype 0, no shape, no bytes
}

# A tensor lent between processes of one machine: the receiver copies its
# bytes from `address` in the sending process, then reads `tokenAddress`
# back (the sender clears it before it lets go) and answers with `id`.
struct LentBytes {
  id @0 :UInt64;
  address @1 :UInt64;
  tokenAddress @2 :UInt64;
}

# Device actor -> master: the partition is registered and runs steps sent
# to it by `handle` (on the task's tensor link, or through the device actor).
struct PartitionRegistered {
  handle @0 :Text;
  device @1 :Text;
}

# Master -> the task (or local device) that registered a partition: the
# master will send it no more steps (the Run's signature was placed again,
# or a task it spanned was lost), so its graph, kernels and Consts go. A
# master that has gone needs none: its tasks drop what it registered.
struct DeregisterPartition {
  handle @0 :Text;
}

# Any actor -> the actor whose request failed: why. A failed reply between
# processes (a refused registration, a refused Hello) carries one of these
# as its CAF error's payload (actors/wire_caf.h).
struct Failure {
  status @0 :StatusProto;
}

# Master -> partitions: abort a step everywhere.
struct AbortStep {
  stepId @0 :Int64;
  status @1 :StatusProto;
}

# Master <-> task health checks.
struct HealthPing {
  sequence @0 :UInt64;
  sentMicros @1 :Int64;
  incarnation @2 :UInt64;
}

# Task -> master, when the master connects: who the task is and what it
# hosts, so that the master can place across the cluster.
struct TaskInfo {
  task @0 :Text;             # "/job:J/replica:0/task:T"
  incarnation @1 :UInt64;    # new each time the task's process starts
  devices @2 :List(Text);    # full device names
  linkPort @3 :UInt16;       # where its tensor links listen; 0: none (a TLS cluster)
}

# Master -> task, when the master connects: who are you? Answered with a
# TaskInfo. `proof` signs `payload` (fresh random bytes) with the cluster's
# secret (actors/wire_auth.h).
struct Describe {
  payload @0 :Data;
  proof @1 :Data;
}

# Master -> task: connect to the tasks after you that you do not know yet,
# forgetting `forget` first (restarted tasks). Answered with an Introduced
# once every one of them has answered the task's Hello.
struct Introduce {
  forget @0 :List(Text);
  # The incarnation of each task as the master found it (TaskInfo). A task
  # that knows another incarnation of one of them knows a process that has
  # gone, and forgets it too: a master that connects afresh does not know
  # which tasks were restarted since the last one.
  current @1 :List(TaskIncarnation);
}

struct TaskIncarnation {
  task @0 :Text;
  incarnation @1 :UInt64;
}

struct Introduced {}

# Task -> task it has connected to: here I am. `proof` signs the task's
# name, its actor (the message's sender), its link port and `payload`.
# Answered with the peer's TaskInfo (its link port).
struct Hello {
  task @0 :Text;
  linkPort @1 :UInt16;
  payload @2 :Data;
  proof @3 :Data;
}
