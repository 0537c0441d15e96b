#include "actors/tensor_link.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>

#include "actors/executor.h"
#include "actors/link_frame.h"
#include "actors/send_batch.h"
#include "actors/socket_io.h"
#include "actors/thread_policy.h"
#include "actors/wire_auth.h"
#include "graph/logging.h"

namespace tact {
namespace {

// 3: frames are Cap'n Proto LinkFrames (actors/link_frame.h); a peer of
// another framing is refused at the handshake rather than misread.
constexpr char kMagic[8] = {'T', 'A', 'C', 'T', 'L', 'N', 'K', '3'};
constexpr size_t kNonceBytes = 16;
constexpr uint32_t kMaxTaskBytes = 1 << 12;
// How long a handshake may take before the connection is dropped.
constexpr int kHandshakeTimeoutMs = 5000;
// From this size a tensor is lent to a peer that can borrow, rather than
// written on the socket: the peer's one copy costs less than the socket's
// two and its protocol processing, even with the answer that comes back.
constexpr size_t kLendBytes = size_t{64} << 10;

// A frame on its way out: its parts, what of them is left to write, and
// the tensor (a reference) whose bytes its data parts point into.
struct Frame {
  std::vector<iovec> parts;
  size_t first = 0;  // parts before it are written
  std::unique_ptr<EncodedLinkFrame> encoded;  // what `parts` began as
  Tensor tensor;
  bool lent = false;  // its bytes stay here for the peer to copy
  // A batch's frames, whose parts these parts are (actors/send_batch.h).
  std::vector<std::unique_ptr<Frame>> pieces;
};

// The frames of `batch` as one, to go out with one gathered write.
std::unique_ptr<Frame> Gathered(std::vector<std::unique_ptr<Frame>> batch) {
  if (batch.size() == 1) return std::move(batch.front());
  auto f = std::make_unique<Frame>();
  for (const auto& piece : batch) f->parts.insert(f->parts.end(), piece->parts.begin(), piece->parts.end());
  f->pieces = std::move(batch);
  return f;
}

// Writes what is left of `f`; false on a broken socket. With `wait`
// false, stops (true) as soon as the socket's buffer is full.
bool WriteFrame(int fd, Frame* f, bool wait, bool* complete) {
  while (f->first < f->parts.size()) {
    msghdr msg{};
    msg.msg_iov = &f->parts[f->first];
    msg.msg_iovlen = std::min<size_t>(f->parts.size() - f->first, IOV_MAX);
    ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && !wait && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (w <= 0) return false;
    while (f->first < f->parts.size() && static_cast<size_t>(w) >= f->parts[f->first].iov_len) {
      w -= static_cast<ssize_t>(f->parts[f->first].iov_len);
      ++f->first;
    }
    if (f->first < f->parts.size()) {
      f->parts[f->first].iov_base = static_cast<char*>(f->parts[f->first].iov_base) + w;
      f->parts[f->first].iov_len -= static_cast<size_t>(w);
    }
  }
  *complete = f->first == f->parts.size();
  return true;
}

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void SetTimeout(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

std::string Nonce() { return NewClusterSecret().substr(0, kNonceBytes); }

bool WriteString(int fd, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  return WriteAll(fd, &n, sizeof n) && WriteAll(fd, s.data(), s.size());
}

bool ReadString(int fd, uint32_t limit, std::string* s) {
  uint32_t n = 0;
  if (!ReadExactly(fd, &n, sizeof n) || n > limit) return false;
  s->resize(n);
  return ReadExactly(fd, s->data(), n);
}

// Reads a socket through a buffer, so that a small frame (header, key and
// data) costs one read() rather than four; a large payload skips the
// buffer and goes straight to its tensor.
class SocketReader {
 public:
  explicit SocketReader(int fd) : fd_(fd), buf_(64 << 10) {}
  bool Read(void* dst, size_t n) {
    char* d = static_cast<char*>(dst);
    Take(&d, &n);
    if (n == 0) return true;
    if (n >= buf_.size() / 2) return ReadExactly(fd_, d, n);
    begin_ = end_ = 0;
    while (n > 0) {
      const ssize_t r = read(fd_, buf_.data() + end_, buf_.size() - end_);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      end_ += static_cast<size_t>(r);
      Take(&d, &n);
    }
    return true;
  }

  // Whether a Read would find bytes without waiting for the peer: in the
  // buffer, or already in the socket.
  bool HasMore() const {
    if (end_ > begin_) return true;
    int queued = 0;
    return ioctl(fd_, FIONREAD, &queued) == 0 && queued > 0;
  }

 private:
  void Take(char** d, size_t* n) {
    const size_t k = std::min(end_ - begin_, *n);
    std::memcpy(*d, buf_.data() + begin_, k);
    begin_ += k;
    *d += k;
    *n -= k;
  }
  int fd_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
};

// TACT_LINK_LENDING=0 turns lending off (to compare, or where a security
// policy forbids one process to read another's memory).
bool LendingAllowed() {
  const char* v = std::getenv("TACT_LINK_LENDING");
  return v == nullptr || std::string(v) != "0";
}

// Where a link's client keeps its nonce, for the server to try reading it.
struct Probe {
  int32_t pid = 0;
  uint32_t unused = 0;
  uint64_t nonce_address = 0;
};

// Copies `n` bytes at `address` in process `pid` to `dst` (Linux's
// cross-memory attach: one copy, no socket); false if not allowed or gone.
bool CopyFromProcess(pid_t pid, void* dst, uint64_t address, size_t n) {
  size_t done = 0;
  while (done < n) {
    iovec local{static_cast<char*>(dst) + done, n - done};
    iovec remote{reinterpret_cast<void*>(address + done), n - done};
    const ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

// A frame for `tensor` (a reference: its bytes are written from where they
// are). With `lent`, the frame names the tensor's address instead of
// carrying its bytes.
StatusOr<std::unique_ptr<Frame>> MakeFrame(int64_t step_id, const std::string& key, const Tensor& tensor,
                                           const LentBytes& lent = {}) {
  auto f = std::make_unique<Frame>();
  TACT_ASSIGN_OR_RETURN(f->encoded, EncodeLinkFrame(step_id, key, tensor, lent));
  f->parts = std::move(f->encoded->parts);  // they point into f->encoded, which stays
  f->tensor = tensor;
  f->lent = lent.id != 0;
  return f;
}

}  // namespace

// One link to a peer. Whoever sends writes at once if the socket is idle,
// without waiting: what does not fit in the socket's buffer, and frames
// sent meanwhile, are the writer thread's. So no sender ever blocks on a
// peer that is slow to read, and no two tasks can wait on each other's
// full sockets (a reader thread runs the kernels its tensor readies, and
// those may send).
struct TensorLinks::Outgoing : std::enable_shared_from_this<TensorLinks::Outgoing> {
  std::string peer;
  uint16_t port = 0;  // the peer's; a restarted peer listens on another
  uint64_t epoch = 0;
  int fd = -1;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<Frame>> queue;
  bool busy = false;  // a thread is writing; the stream is its
  bool stop = false;
  bool broken = false;
  std::thread writer;
  // Lending (the peer reads large tensors out of this process itself): the
  // tensors lent and not yet answered for, kept alive until then, each with
  // its token (FrameHeader::lent_token_address; a map's entries stay where
  // they are). Ids start at random, so that memory reused by another
  // link's entry never reads as this one's token.
  struct Lent {
    Tensor tensor;
    uint64_t token = 0;
  };
  bool lends = false;
  std::mutex lent_mu;
  uint64_t next_lent = (static_cast<uint64_t>(std::random_device{}()) << 32 | std::random_device{}()) | 1;
  std::map<uint64_t, Lent> lent;
  std::thread answers;

  ~Outgoing() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      cv.notify_all();
    }
    // A writer blocked on a peer that stopped reading returns, and so does
    // the reader of the answers.
    if (fd >= 0) shutdown(fd, SHUT_RDWR);
    if (writer.joinable()) writer.join();
    if (answers.joinable()) answers.join();
    if (fd >= 0) close(fd);
  }

  // False if the link is broken. While a SendBatch is open on this
  // thread, the frame waits for the batch's flush.
  bool Send(std::unique_ptr<Frame> f) {
    if (!SendBatch::Open()) return Write(std::move(f));
    {
      std::lock_guard<std::mutex> lock(mu);
      if (broken) return false;
    }
    std::vector<std::unique_ptr<Frame>>& held = Held()[this];
    if (held.empty()) SendBatch::AtFlush([link = shared_from_this()] { link->WriteHeld(); });
    held.push_back(std::move(f));
    return true;
  }

  // The frames this thread's open batch holds, by link.
  using HeldFrames = std::map<const Outgoing*, std::vector<std::unique_ptr<Frame>>>;
  static HeldFrames& Held() {
    thread_local HeldFrames held;
    return held;
  }

  void WriteHeld() {
    auto it = Held().find(this);
    if (it == Held().end()) return;
    std::vector<std::unique_ptr<Frame>> frames = std::move(it->second);
    Held().erase(it);
    Write(Gathered(std::move(frames)));  // a broken link drops them, as its queue does
  }

  // Writes `f` at once if the socket is idle, as far as its buffer takes
  // it; the rest, and frames behind a busy socket, go to the writer.
  bool Write(std::unique_ptr<Frame> f) {
    std::unique_lock<std::mutex> lock(mu);
    if (broken) return false;
    if (busy || !queue.empty()) {
      queue.push_back(std::move(f));
      cv.notify_one();
      return true;
    }
    busy = true;
    lock.unlock();
    bool complete = false;
    const bool ok = WriteFrame(fd, f.get(), /*wait=*/false, &complete);
    lock.lock();
    busy = false;
    if (!ok) broken = true;
    // The rest of a frame begun goes before anything else.
    if (ok && !complete) queue.push_front(std::move(f));
    if (!queue.empty()) cv.notify_one();
    return ok;
  }

  // The frame for `tensor` on this link: lent if the peer borrows and it
  // is large.
  StatusOr<std::unique_ptr<Frame>> FrameFor(int64_t step_id, const std::string& key, const Tensor& tensor) {
    if (!lends || tensor.TotalBytes() < kLendBytes) return MakeFrame(step_id, key, tensor);
    std::lock_guard<std::mutex> lock(lent_mu);
    uint64_t id = next_lent++;
    if (id == 0) id = next_lent++;
    Lent& l = lent[id];
    l.tensor = tensor;
    l.token = id;
    StatusOr<std::unique_ptr<Frame>> f = MakeFrame(
        step_id, key, tensor,
        LentBytes{id, reinterpret_cast<uint64_t>(tensor.raw_data()), reinterpret_cast<uint64_t>(&l.token)});
    if (!f.ok()) lent.erase(id);
    return f;
  }

  // The peer's answers: the id of each lent tensor it has copied. When the
  // link closes, every tensor still lent is let go, its token cleared
  // first.
  void AnswerLoop() {
    uint64_t id = 0;
    while (ReadExactly(fd, &id, sizeof id)) {
      std::lock_guard<std::mutex> lock(lent_mu);
      auto it = lent.find(id);
      if (it == lent.end()) continue;
      it->second.token = 0;
      lent.erase(it);
    }
    std::lock_guard<std::mutex> lock(lent_mu);
    for (auto& [lent_id, l] : lent) l.token = 0;
    lent.clear();
  }

  void WriterLoop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || (!busy && !queue.empty()); });
      if (stop) return;
      std::unique_ptr<Frame> f = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      bool complete = false;
      const bool ok = !broken && WriteFrame(fd, f.get(), /*wait=*/true, &complete);
      f.reset();  // the tensor's reference goes here, off the lock
      lock.lock();
      busy = false;
      if (!ok) {
        broken = true;
        queue.clear();
      }
    }
  }
};

bool TensorLinks::Carries(DataType dtype) { return LinkFrameCarries(dtype); }

StatusOr<std::unique_ptr<TensorLinks>> TensorLinks::Start(const std::string& task, const std::string& host,
                                                          const std::string& key, Deliver deliver,
                                                          Closed closed, Lost lost) {
  std::unique_ptr<TensorLinks> l(new TensorLinks());
  l->task_ = task;
  l->key_ = key;
  l->deliver_ = std::move(deliver);
  l->closed_ = std::move(closed);
  l->lost_ = std::move(lost);
  l->lend_tensors_ = LendingAllowed();
  StatusOr<int> listener = ListenTcp(host, 0, false, &l->port_);
  if (!listener.ok()) {
    return listener.status().WithPrefix("task " + task + " cannot listen for tensor links on " + host + ": ");
  }
  l->listener_ = *listener;
  l->acceptor_ = std::thread([p = l.get()] { p->AcceptLoop(); });
  return l;
}

std::unique_ptr<TensorLinks> TensorLinks::SendOnly(const std::string& task, const std::string& key) {
  std::unique_ptr<TensorLinks> l(new TensorLinks());
  l->task_ = task;
  l->key_ = key;
  l->lend_tensors_ = LendingAllowed();
  return l;
}

TensorLinks::~TensorLinks() {
  std::map<std::string, std::shared_ptr<Outgoing>> outgoing;
  {
    std::lock_guard<std::mutex> lock(incoming_mu_);
    closing_ = true;
    // Wakes the acceptor and every reader out of their blocking calls.
    if (listener_ >= 0) shutdown(listener_, SHUT_RDWR);
    for (const auto& [fd, thread] : readers_) shutdown(fd, SHUT_RDWR);
  }
  {
    std::lock_guard<std::mutex> lock(outgoing_mu_);
    outgoing.swap(outgoing_);
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::unique_lock<std::mutex> lock(incoming_mu_);
  readers_done_.wait(lock, [&] { return readers_.empty(); });
  for (std::thread& t : finished_readers_) t.join();
  if (listener_ >= 0) close(listener_);
}

// Joins the readers whose links have closed: a peer that restarts or
// reconnects a thousand times must not leave a thousand threads behind.
void TensorLinks::JoinFinishedReaders() {
  std::vector<std::thread> finished;
  {
    std::lock_guard<std::mutex> lock(incoming_mu_);
    finished.swap(finished_readers_);
  }
  for (std::thread& t : finished) t.join();
}

void TensorLinks::AcceptLoop() {
  for (;;) {
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    JoinFinishedReaders();
    std::lock_guard<std::mutex> lock(incoming_mu_);
    if (closing_) {
      if (fd >= 0) close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    readers_.emplace(fd, std::thread([this, fd] {
      NeverPreemptOnWakeUp();  // actors/thread_policy.h says why
      ReadLoop(fd);
      ReaderDone(fd);
    }));
  }
}

// Under the lock, so that no shutdown() of the destructor can reach the fd
// once its number may belong to another socket.
void TensorLinks::ReaderDone(int fd) {
  std::lock_guard<std::mutex> lock(incoming_mu_);
  auto it = readers_.find(fd);
  finished_readers_.push_back(std::move(it->second));
  readers_.erase(it);
  close(fd);
  readers_done_.notify_all();
}

// The server's side of the handshake, then frames until the peer closes.
void TensorLinks::ReadLoop(int fd) {
  NoDelay(fd);
  SetTimeout(fd, kHandshakeTimeoutMs);
  char magic[sizeof kMagic];
  std::string peer, client_nonce;
  Probe probe;
  if (!ReadExactly(fd, magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0 ||
      !ReadString(fd, kMaxTaskBytes, &peer) || !ReadString(fd, kNonceBytes, &client_nonce) ||
      !ReadExactly(fd, &probe, sizeof probe)) {
    LogWarning("tact worker ", task_, ": refused a tensor link: not a tact peer");
    shutdown(fd, SHUT_RDWR);
    return;
  }
  // The peer lends its tensors if this process can read its nonce where it
  // says it is: same machine, same user, and the kernel allows it.
  std::string seen(client_nonce.size(), '\0');
  const bool borrows = !client_nonce.empty() &&
                       CopyFromProcess(probe.pid, seen.data(), probe.nonce_address, seen.size()) &&
                       seen == client_nonce;
  const std::string server_nonce = Nonce();
  StatusOr<std::string> proof = SignWithKey(key_, "tact::link-server", client_nonce + server_nonce + task_);
  std::string client_proof;
  const uint8_t lend = borrows ? 1 : 0;
  if (!proof.ok() || !WriteString(fd, server_nonce) || !WriteString(fd, task_) ||
      !WriteString(fd, *proof) || !WriteAll(fd, &lend, 1) || !ReadString(fd, kWireTrailerBytes, &client_proof) ||
      !VerifyWithKey(key_, "tact::link-client", client_nonce + server_nonce + peer, client_proof).ok()) {
    LogWarning("tact worker ", task_, ": refused a tensor link claiming to be ", peer,
               ": no proof of the cluster's secret");
    shutdown(fd, SHUT_RDWR);
    return;
  }
  SetTimeout(fd, 0);
  const LinkSender from{peer, PeerAddress(fd)};
  struct OnClose {
    const Closed& closed;
    const LinkSender& from;
    ~OnClose() {
      if (closed) closed(from);
    }
  } on_close{closed_, from};
  SocketReader in(fd);
  // This thread only delivers: the cheap kernels a tensor readies run here.
  InlineContinuations inline_here;
  // The ids of the lent tensors copied and not yet answered. They are
  // answered together when no frame is waiting, so that a burst of lent
  // tensors wakes the sender's answer thread once rather than per tensor.
  std::vector<uint64_t> copied;
  for (;;) {
    if (!copied.empty() && !in.HasMore()) {
      if (!WriteAll(fd, copied.data(), copied.size() * sizeof(uint64_t))) {
        shutdown(fd, SHUT_RDWR);
        return;
      }
      copied.clear();
    }
    DecodedLinkFrame f;
    const Status read = ReadLinkFrame([&in](void* dst, size_t n) { return in.Read(dst, n); }, &f);
    if (read.code() == Code::kCancelled) return;  // closed
    if (!read.ok()) {
      LogWarning("tact worker ", task_, ": dropped the tensor link from ", peer, ": ", read.ToString());
      shutdown(fd, SHUT_RDWR);
      return;
    }
    const LentBytes& lent = f.lent;
    if (lent.id != 0 && !borrows) {
      LogWarning("tact worker ", task_, ": dropped the tensor link from ", peer,
                 ": a lent tensor on a link that cannot borrow");
      shutdown(fd, SHUT_RDWR);
      return;
    }
    uint64_t token = 0;
    if (lent.id != 0 && (!CopyFromProcess(probe.pid, f.tensor.raw_data(), lent.address, f.tensor.TotalBytes()) ||
                         !CopyFromProcess(probe.pid, &token, lent.token_address, sizeof token) ||
                         token != lent.id)) {
      // The sender is gone, or let go of the tensor before the copy ended
      // (its link closed): what was copied may not be the tensor. Its Recv
      // hears of it now; the step would otherwise wait for its deadline
      // (seen: 10 s after a worker's connections were cut mid-step).
      const Status why =
          errors::Unavailable("the tensor link from ", peer, " lost the tensor for key '", f.key,
                              "' of step ", f.step_id, ": it was lent, and ",
                              token == lent.id ? "could not be copied" : "is no longer lent");
      LogWarning("tact worker ", task_, ": dropped the tensor link from ", peer, ": ", why.message());
      if (lost_) lost_(from, f.step_id, f.key, why);
      shutdown(fd, SHUT_RDWR);
      return;
    }
    if (lent.id != 0) copied.push_back(lent.id);
    deliver_(from, f.step_id, f.key, f.tensor);
  }
}

StatusOr<std::shared_ptr<TensorLinks::Outgoing>> TensorLinks::LinkTo(const std::string& peer,
                                                                     const std::string& host,
                                                                     uint16_t port, uint64_t epoch) {
  auto current = [&](const std::shared_ptr<Outgoing>& l) {
    return l != nullptr && !l->broken && l->port == port && l->epoch == epoch;
  };
  {
    std::lock_guard<std::mutex> lock(outgoing_mu_);
    auto it = outgoing_.find(peer);
    if (it != outgoing_.end() && current(it->second)) return it->second;
  }
  auto fail = [&](const std::string& what) {
    return errors::Unavailable("task ", task_, " cannot open its tensor link to task ", peer, " at ",
                               host, ":", port, ": ", what);
  };
  StatusOr<int> connected = ConnectTcp(host, port, 0);
  if (!connected.ok()) return fail(connected.status().message());
  const int fd = *connected;
  NoDelay(fd);
  SetTimeout(fd, kHandshakeTimeoutMs);
  auto link = std::make_shared<Outgoing>();
  link->peer = peer;
  link->port = port;
  link->epoch = epoch;
  link->fd = fd;
  const std::string client_nonce = Nonce();
  std::string server_nonce, server_task, server_proof;
  Probe probe;
  probe.pid = getpid();
  probe.nonce_address = reinterpret_cast<uint64_t>(client_nonce.data());
  uint8_t lend = 0;
  if (!WriteAll(fd, kMagic, sizeof kMagic) || !WriteString(fd, task_) || !WriteString(fd, client_nonce) ||
      !WriteAll(fd, &probe, sizeof probe) || !ReadString(fd, kNonceBytes, &server_nonce) ||
      !ReadString(fd, kMaxTaskBytes, &server_task) || !ReadString(fd, kWireTrailerBytes, &server_proof) ||
      !ReadExactly(fd, &lend, 1)) {
    return fail("the handshake broke off");
  }
  if (server_task != peer ||
      !VerifyWithKey(key_, "tact::link-server", client_nonce + server_nonce + server_task, server_proof).ok()) {
    return fail("the process there is '" + server_task + "' and did not prove the cluster's secret");
  }
  StatusOr<std::string> proof = SignWithKey(key_, "tact::link-client", client_nonce + server_nonce + task_);
  if (!proof.ok() || !WriteString(fd, *proof)) return fail("the handshake broke off");
  SetTimeout(fd, 0);
  link->lends = lend == 1 && lend_tensors_;
  link->writer = std::thread([l = link.get()] { l->WriterLoop(); });
  link->answers = std::thread([l = link.get()] { l->AnswerLoop(); });
  std::lock_guard<std::mutex> lock(outgoing_mu_);
  std::shared_ptr<Outgoing>& slot = outgoing_[peer];
  // Another thread may have linked meanwhile; either link works, the
  // first stays.
  if (!current(slot)) slot = link;
  return slot;
}

Status TensorLinks::Send(const std::string& peer, const std::string& host, uint16_t port, uint64_t epoch,
                         int64_t step_id, const std::string& key, const Tensor& tensor) {
  TACT_ASSIGN_OR_RETURN(std::shared_ptr<Outgoing> link, LinkTo(peer, host, port, epoch));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Frame> frame, link->FrameFor(step_id, key, tensor));
  if (frame->lent) ++tensors_lent_;
  if (!link->Send(std::move(frame))) {
    return errors::Unavailable("the tensor link from task ", task_, " to task ", peer, " broke");
  }
  return Status::OK();
}

void TensorLinks::Forget(const std::string& peer) {
  std::shared_ptr<Outgoing> link;  // closed here, off the lock
  std::lock_guard<std::mutex> lock(outgoing_mu_);
  auto it = outgoing_.find(peer);
  if (it == outgoing_.end()) return;
  link = std::move(it->second);
  outgoing_.erase(it);
}

bool TensorLinks::SendIfLinked(const std::string& peer, uint16_t port, uint64_t epoch, int64_t step_id,
                               const std::string& key, const Tensor& tensor) {
  std::shared_ptr<Outgoing> link;
  {
    std::lock_guard<std::mutex> lock(outgoing_mu_);
    auto it = outgoing_.find(peer);
    if (it == outgoing_.end() || it->second->broken || it->second->port != port || it->second->epoch != epoch) {
      return false;
    }
    link = it->second;
  }
  StatusOr<std::unique_ptr<Frame>> frame = link->FrameFor(step_id, key, tensor);
  if (!frame.ok()) {
    LogWarning("tact: tensor '", key, "' cannot go on a tensor link: ", frame.status().ToString());
    return false;
  }
  if ((*frame)->lent) ++tensors_lent_;
  return link->Send(std::move(frame).value());
}

}  // namespace tact
