// Tensor bytes between two tasks of a cluster on a socket of their own
// (paper 3.3: a Send delivers to its Recv's task), beside CAF.
//
// Why not CAF's messages: `tact bench sendrecv` measured them at a tenth of
// a plain socket's bandwidth and fifteen times its round trip on loopback
// (each tensor is encoded, copied into CAF's buffer, handed between three
// threads, and copied out again). A link writes each tensor as a Cap'n
// Proto message whose tensor bytes are segments of their own
// (actors/link_frame.h: schemas/runtime.capnp's LinkFrame), from the
// tensor's own buffer with one writev, and its reader thread reads them
// straight into the tensor the Recv gets.
//
// Each task listens on one extra port. The sending task opens its link to
// a peer on first use; the connection proves the cluster's secret both
// ways before any tensor is read (actors/wire_auth.h), so a process
// without it cannot inject a tensor. Frames are not signed one by one:
// someone who can hijack a TCP connection on the network can alter them,
// which is what TLS is for (a TLS cluster sends tensors through CAF).
//
// Between processes of one machine and user, a large tensor is lent
// rather than written: the frame names where its bytes are, the receiver
// copies them straight out of the sender's memory (process_vm_readv: one
// copy instead of the socket's two and its protocol processing, which
// made up most of a distributed step's CPU time on loopback), and answers
// with the frame's id, and only then does the sender let go of the
// tensor. Whether the receiver can borrow is tried in the handshake: it
// reads the sender's nonce where the sender says it is. Where the kernel
// forbids it (Yama's ptrace_scope, a container's seccomp filter), or with
// TACT_LINK_LENDING=0, the bytes go on the socket.
//
// Each accepted link has a reader thread of its own, under Linux's batch
// policy: a frame's wake-up never preempts the thread that sent it, which
// is usually computing (actors/thread_policy.h).
//
// Strings go through CAF: their bytes are not one buffer.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "graph/status.h"
#include "graph/tensor.h"

namespace tact {

// Who sent a frame: the task named in the link's handshake (which proved
// the cluster's secret), and its address as this end of the link sees it.
struct LinkSender {
  std::string task;
  std::string host;
};

class TensorLinks {
 public:
  // Called on a reader thread for each tensor that arrives.
  using Deliver = std::function<void(const LinkSender& from, int64_t step_id, const std::string& key,
                                     const Tensor& tensor)>;

  // Called on a reader thread when a link that passed its handshake closes.
  using Closed = std::function<void(const LinkSender& from)>;

  // Called on a reader thread for a tensor whose frame arrived without its
  // bytes (it was lent, and its sender let go of it when its own end of
  // the link closed), before the link is dropped: the Recv waiting for it
  // should fail now, not at the step's deadline. Unavailable, naming the
  // peer, the key and the step.
  using Lost = std::function<void(const LinkSender& from, int64_t step_id, const std::string& key,
                                  const Status& why)>;

  // Listens on `host` (port chosen by the system). `key` is the cluster's
  // signing key (wire_auth.h's ClusterKey). Errors name the task.
  static StatusOr<std::unique_ptr<TensorLinks>> Start(const std::string& task, const std::string& host,
                                                      const std::string& key, Deliver deliver,
                                                      Closed closed = nullptr, Lost lost = nullptr);
  // Only sends: no port, nothing arrives (a master's; actors/bulk_transfer.h).
  static std::unique_ptr<TensorLinks> SendOnly(const std::string& task, const std::string& key);
  ~TensorLinks();  // closes every link and joins its threads

  uint16_t port() const { return port_; }  // 0 for SendOnly
  // Tensors this side has lent so far (the rest went on the sockets).
  uint64_t tensors_lent() const { return tensors_lent_; }

  // Whether a tensor of this dtype travels on a link.
  static bool Carries(DataType dtype);

  // Sends the tensor for `key` of step `step_id` to task `peer`, listening
  // at host:port; connects first if this is the first tensor for it, or
  // the first of a new `epoch`: the caller's count of its connections to
  // the peer, which it raises when it has been cut off from the peer and
  // reached it again. (A link's socket whose far end was shut down takes
  // a write without an error, and the bytes are lost: the old link must
  // not carry the next step's tensors.) Unavailable naming the peer when
  // it cannot be reached or the link broke.
  Status Send(const std::string& peer, const std::string& host, uint16_t port, uint64_t epoch,
              int64_t step_id, const std::string& key, const Tensor& tensor);

  // Opens the link Send would use, if it is not open.
  Status Connect(const std::string& peer, const std::string& host, uint16_t port, uint64_t epoch) {
    return LinkTo(peer, host, port, epoch).status();
  }

  // Closes the link to `peer`, if one is open: a master whose session
  // ended is not met again, and its link's thread and socket must go.
  void Forget(const std::string& peer);

  // Send on a link already open to `peer` at `port` for `epoch`; never
  // connects, so an actor's thread may call it (a connect to a dead host
  // can take minutes). False when there is no such link or it broke.
  bool SendIfLinked(const std::string& peer, uint16_t port, uint64_t epoch, int64_t step_id,
                    const std::string& key, const Tensor& tensor);

 private:
  struct Outgoing;
  TensorLinks() = default;
  void AcceptLoop();
  void ReadLoop(int fd);
  void ReaderDone(int fd);
  void JoinFinishedReaders();
  StatusOr<std::shared_ptr<Outgoing>> LinkTo(const std::string& peer, const std::string& host,
                                             uint16_t port, uint64_t epoch);

  std::string task_;
  std::string key_;
  Deliver deliver_;
  Closed closed_;
  Lost lost_;
  bool lend_tensors_ = true;  // offer lending on the links this side opens
  std::atomic<uint64_t> tensors_lent_{0};
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  // Two locks, never held together, and neither during a handshake: a
  // task's acceptor must answer a peer's handshake while that task's own
  // Send waits for the peer's answer.
  std::mutex incoming_mu_;  // guards closing_, readers_, finished_readers_
  bool closing_ = false;
  std::map<int, std::thread> readers_;         // by the fd each reads; it closes it
  std::vector<std::thread> finished_readers_;  // returned, to be joined
  std::condition_variable readers_done_;
  std::mutex outgoing_mu_;
  std::map<std::string, std::shared_ptr<Outgoing>> outgoing_;  // by peer task
};

}  // namespace tact
