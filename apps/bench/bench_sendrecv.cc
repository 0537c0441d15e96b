// `tact bench sendrecv --bytes N [--reps R] [--json]`: a tensor crossing
// between two worker processes over loopback (paper 3.3's Send/Recv), next
// to a plain TCP socket between two processes moving the same bytes, in
// the same run; and between two devices of one process.
//
//   remote_gb_s          N bytes of float from worker 0 to worker 1 per step
//   raw_tcp_gb_s         N bytes over a socket to a forked process, and a
//                        one-byte answer
//   lossy_remote_gb_s    the same tensor with lossy 16-bit transfer (bytes
//                        counted as the float32 tensor's)
//   inproc_us            one step moving the tensor between two devices of
//                        one process (no byte is copied)
//   inproc_pair_endpoint_ns  one Send and its Recv in one process through
//                        their endpoint actors (actors/endpoints.h), without
//                        the step around them
//   inproc_pair_table_ns the same pair through the step's rendezvous table,
//                        which is how they met before they were actors
//   remote_small_rtt_us  a 4-byte tensor sent from worker 0 to worker 1 and
//                        back, within one step (a chain of hops)
//   raw_tcp_small_rtt_us 4 bytes ping-ponged over the socket
//   raw_tcp_small_rtt_same_core_us, raw_tcp_small_rtt_across_cores_us
//                        the same with both ends pinned to one core, and to
//                        two (null with one core allowed): the two limits a
//                        hop between processes meets. On the 2-vCPU VMs
//                        here a wake-up across vCPUs costs 15-20 µs more
//                        each way, so the unpinned figure is one or the
//                        other, run to run
//   small_rtt_over_raw_tcp  the two small round trips' ratio in each of
//                        kRounds rounds, min/median/max: each round times
//                        the socket and then the chain, so that both see the
//                        same state of the machine (on a 2-vCPU VM a wake-up
//                        alone moves either by several times, run to run);
//                        the two figures above are the rounds' medians
//   remote_step_us       a step whose one node runs on worker 0: the
//                        master's RunStep there and its StepDone back, the
//                        fixed cost of every distributed step (its peer is
//                        raw_tcp_small_rtt_us, one round trip)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <nlohmann/json.hpp>

#include "actors/endpoint_bench.h"
#include "actors/session.h"
#include "apps/bench/bench.h"
#include "apps/bench/spread.h"
#include "apps/cluster/local_cluster.h"
#include "graph/ops/all_ops.h"

namespace tact::apps {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Pins the calling thread to core `cpu`.
void PinTo(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof(one), &one);
}

// A forked process at the other end of a loopback socket: for each request
// (an 8-byte size), it reads that many bytes and answers with one; a size
// of 0 ends it; a size of ~0 starts ping-pong of 4 bytes, `count` times;
// a size of ~1 pins it to core `cpu` (-1: the cores it started with) and
// answers one byte.
class TcpPeer {
 public:
  static StatusOr<std::unique_ptr<TcpPeer>> Start() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return errors::Internal("socketpair failed");
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return errors::Unavailable("cannot listen on loopback: ", std::strerror(errno));
    }
    const pid_t pid = fork();
    if (pid < 0) return errors::Internal("fork failed");
    if (pid == 0) {
      close(listener);
      const int s = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) _exit(1);
      Serve(s);
      _exit(0);
    }
    auto peer = std::unique_ptr<TcpPeer>(new TcpPeer());
    peer->pid_ = pid;
    peer->fd_ = accept(listener, nullptr, nullptr);
    close(listener);
    if (peer->fd_ < 0) return errors::Unavailable("the TCP peer did not connect");
    int one = 1;
    setsockopt(peer->fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return peer;
  }
  ~TcpPeer() {
    uint64_t end = 0;
    WriteAll(fd_, &end, sizeof end);
    close(fd_);
    waitpid(pid_, nullptr, 0);
  }

  // Seconds to send `buf` and get the one-byte answer.
  double Send(const std::vector<char>& buf) {
    const auto start = Clock::now();
    uint64_t n = buf.size();
    char ack = 0;
    WriteAll(fd_, &n, sizeof n);
    WriteAll(fd_, buf.data(), buf.size());
    ReadAll(fd_, &ack, 1);
    return Seconds(start);
  }
  // Pins the peer to `cpu`, or with -1 lets it run where it could at first.
  void PinPeer(int cpu) {
    uint64_t op = ~uint64_t{1};
    WriteAll(fd_, &op, sizeof op);
    const int32_t c = cpu;
    WriteAll(fd_, &c, sizeof c);
    char ack = 0;
    ReadAll(fd_, &ack, 1);
  }
  // Median seconds of a 4-byte round trip.
  double PingPong(int count) {
    uint64_t op = ~uint64_t{0};
    WriteAll(fd_, &op, sizeof op);
    uint32_t n = static_cast<uint32_t>(count);
    WriteAll(fd_, &n, sizeof n);
    std::vector<double> rtt;
    char b[4] = {1, 2, 3, 4};
    for (int i = 0; i < count; ++i) {
      const auto start = Clock::now();
      WriteAll(fd_, b, 4);
      ReadAll(fd_, b, 4);
      rtt.push_back(Seconds(start));
    }
    return Median(rtt);
  }

 private:
  TcpPeer() = default;
  static void WriteAll(int fd, const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = write(fd, c, n);
      if (w <= 0) return;
      c += w;
      n -= static_cast<size_t>(w);
    }
  }
  static void ReadAll(int fd, void* p, size_t n) {
    char* c = static_cast<char*>(p);
    while (n > 0) {
      const ssize_t r = read(fd, c, n);
      if (r <= 0) return;
      c += r;
      n -= static_cast<size_t>(r);
    }
  }
  static void Serve(int s) {
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    cpu_set_t started;
    const bool have_started = sched_getaffinity(0, sizeof(started), &started) == 0;
    std::vector<char> buf;
    for (;;) {
      uint64_t n = 0;
      ReadAll(s, &n, sizeof n);
      if (n == 0) return;
      if (n == ~uint64_t{1}) {
        int32_t cpu = -1;
        ReadAll(s, &cpu, sizeof cpu);
        if (cpu >= 0) {
          PinTo(cpu);
        } else if (have_started) {
          sched_setaffinity(0, sizeof(started), &started);
        }
        const char ack = 1;
        WriteAll(s, &ack, 1);
        continue;
      }
      if (n == ~uint64_t{0}) {
        uint32_t count = 0;
        ReadAll(s, &count, sizeof count);
        char b[4];
        for (uint32_t i = 0; i < count; ++i) {
          ReadAll(s, b, 4);
          WriteAll(s, b, 4);
        }
        continue;
      }
      // Read whole into one buffer, as a link reads into its tensor.
      if (buf.size() < n) buf.resize(n);
      ReadAll(s, buf.data(), n);
      const char ack = 1;
      WriteAll(s, &ack, 1);
    }
  }
  pid_t pid_ = 0;
  int fd_ = -1;
};

// A float tensor of `bytes` from `from` to `to`, whose size is fetched.
GraphDef Transfer(int64_t bytes, const std::string& from, const std::string& to) {
  Scope s = Scope::NewRootScope();
  Tensor t(DT_FLOAT, TensorShape({bytes / 4}));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = static_cast<float>(i % 251);
  auto c = Const(s.WithDevice(from).WithOpName("tensor"), t);
  Size(s.WithDevice(to).WithOpName("size"), c);
  return *s.ToGraphDef();
}

// A 4-byte tensor hopping `hops` times between two devices, ending where
// it started.
GraphDef PingPongChain(int hops, const std::string& a, const std::string& b) {
  Scope s = Scope::NewRootScope();
  // Not the Const itself on the first hop: the partitioner would copy a
  // small Const to b rather than send it (PartitionOptions).
  Output x = Identity(s.WithDevice(a), Const(s.WithDevice(a), Tensor::Scalar<float>(1)));
  for (int i = 1; i <= hops; ++i) x = Identity(s.WithDevice(i % 2 == 1 ? b : a), x);
  Identity(s.WithDevice(a).WithOpName("end"), x);
  return *s.ToGraphDef();
}

// Median seconds of a Run fetching `fetch`, after a warm-up Run (which
// also registers the partitions).
StatusOr<double> TimeRuns(Session& session, const GraphDef& graph, const std::string& fetch, int reps) {
  TACT_RETURN_IF_ERROR(session.Extend(graph));
  TACT_RETURN_IF_ERROR(session.Run({}, {fetch}, {}).status());
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    TACT_RETURN_IF_ERROR(session.Run({}, {fetch}, {}).status());
    times.push_back(Seconds(start));
  }
  return Median(times);
}

StatusOr<std::unique_ptr<Session>> ClusterSession(const LocalCluster& cluster, bool lossy) {
  SessionOptions o;
  o.cluster = cluster.spec();
  o.cluster_secret = cluster.secret();
  o.lossy_float_transfer = lossy;
  return Session::Create(o);
}

constexpr int kHops = 200;
constexpr int kRounds = 5;
// Runs timed for each side of the round trip's difference, whatever
// --reps says: with one run each, a hiccup in the hop-free step made the
// difference, and so the round trip, negative.
constexpr int kMinRttReps = 20;

// The raw round trip with both ends on one core and on two (nullopt:
// fewer than two cores allowed), medians of a few series. The calling
// thread gets back the cores it had, before anything else starts threads.
struct PinnedRtts {
  std::optional<double> same_core_us, across_cores_us;
};

PinnedRtts MeasurePinnedRtts(TcpPeer* tcp) {
  PinnedRtts r;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0 || CPU_COUNT(&mine) < 2) return r;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &mine)) cpus.push_back(c);
  }
  std::vector<double> same, across;
  PinTo(cpus[0]);
  for (int series = 0; series < 3; ++series) {
    tcp->PinPeer(cpus[0]);
    same.push_back(tcp->PingPong(200) * 1e6);
    tcp->PinPeer(cpus[1]);
    across.push_back(tcp->PingPong(200) * 1e6);
  }
  tcp->PinPeer(-1);
  sched_setaffinity(0, sizeof(mine), &mine);
  r.same_core_us = Median(same);
  r.across_cores_us = Median(across);
  return r;
}

struct SendRecvResult {
  int64_t bytes = 0;
  double remote_gb_s = 0, raw_tcp_gb_s = 0, lossy_remote_gb_s = 0, inproc_us = 0;
  double remote_small_rtt_us = 0, raw_tcp_small_rtt_us = 0, remote_step_us = 0;
  PinnedRtts pinned;
  double pair_endpoint_ns = 0, pair_table_ns = 0;  // medians
  std::vector<double> small_rtt_ratio;             // per round
};

StatusOr<SendRecvResult> BenchSendRecv(int64_t bytes, int reps, const std::string& binary) {
  if (bytes < 4 || bytes % 4 != 0) return errors::InvalidArgument("--bytes must be a positive multiple of 4");
  if (reps < 1) return errors::InvalidArgument("--reps must be at least 1, got ", reps);
  SendRecvResult r;
  r.bytes = bytes;
  // The socket peer is forked before any thread of this process starts.
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<TcpPeer> tcp, TcpPeer::Start());
  std::vector<char> buf(static_cast<size_t>(bytes), 7);
  tcp->Send(buf);  // warm-up
  std::vector<double> tcp_times;
  for (int i = 0; i < reps; ++i) tcp_times.push_back(tcp->Send(buf));
  r.raw_tcp_gb_s = static_cast<double>(bytes) / Median(tcp_times) / 1e9;
  r.pinned = MeasurePinnedRtts(tcp.get());

  LocalClusterOptions c;
  c.binary = binary;
  c.jobs = {{"worker", 2}};
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<LocalCluster> cluster, LocalCluster::Start(c));
  const std::string w0 = "/job:worker/task:0", w1 = "/job:worker/task:1";
  for (bool lossy : {false, true}) {
    TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, ClusterSession(*cluster, lossy));
    TACT_ASSIGN_OR_RETURN(double t, TimeRuns(*s, Transfer(bytes, w0, w1), "size", reps));
    (lossy ? r.lossy_remote_gb_s : r.remote_gb_s) = static_cast<double>(bytes) / t / 1e9;
    if (lossy) continue;
    // The chain's extra time over a one-hop-free step is the hops'.
    std::vector<double> raw_us, rtt_us, step_us;
    for (int round = 0; round < kRounds; ++round) {
      // Sessions of their own: TimeRuns extends a session with its graph.
      TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> chain, ClusterSession(*cluster, false));
      TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> none, ClusterSession(*cluster, false));
      raw_us.push_back(tcp->PingPong(200) * 1e6);
      const int rtt_reps = std::max(reps, kMinRttReps);
      TACT_ASSIGN_OR_RETURN(double t_chain, TimeRuns(*chain, PingPongChain(kHops, w0, w1), "end", rtt_reps));
      TACT_ASSIGN_OR_RETURN(double t_none, TimeRuns(*none, PingPongChain(0, w0, w1), "end", rtt_reps));
      rtt_us.push_back((t_chain - t_none) / (kHops / 2) * 1e6);
      step_us.push_back(t_none * 1e6);
      r.small_rtt_ratio.push_back(rtt_us.back() / raw_us.back());
    }
    r.raw_tcp_small_rtt_us = Median(raw_us);
    r.remote_small_rtt_us = Median(rtt_us);
    r.remote_step_us = Median(step_us);
  }
  SessionOptions local;
  local.device_count = {{"CPU", 2}};
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Session> in, Session::Create(local));
  TACT_ASSIGN_OR_RETURN(double t_in, TimeRuns(*in, Transfer(bytes, "/device:CPU:0", "/device:CPU:1"), "size", reps));
  r.inproc_us = t_in * 1e6;
  TACT_ASSIGN_OR_RETURN(SendRecvPairTimes pair, TimeSendRecvPairs(20000));
  r.pair_endpoint_ns = Median(pair.endpoint_ns);
  r.pair_table_ns = Median(pair.table_ns);
  return r;
}

// A figure, or JSON's null where it was not measured.
nlohmann::json OrNull(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

void AddBenchSendRecv(CLI::App& bench, std::function<int()>& run) {
  struct Options {
    int64_t bytes = int64_t{64} << 20;
    int reps = 9;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = bench.add_subcommand("sendrecv", "a tensor between two worker processes beside raw TCP");
  cmd->add_option("--bytes", opts->bytes, "tensor size in bytes (a multiple of 4)");
  // 0 left the medians nothing to take: a crash.
  cmd->add_option("--reps", opts->reps,
                  "timed transfers per measurement (median; at least 20 for the round trip)")
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", opts->json, "print only the JSON line");
  cmd->callback([opts, &run] {
    run = [opts] {
      StatusOr<SendRecvResult> r = BenchSendRecv(opts->bytes, opts->reps, CurrentExecutable());
      if (!r.ok()) {
        std::fprintf(stderr, "tact bench sendrecv: %s\n", r.status().ToString().c_str());
        return 1;
      }
      const nlohmann::ordered_json line = {{"bytes", r->bytes},
                                           {"remote_gb_s", r->remote_gb_s},
                                           {"raw_tcp_gb_s", r->raw_tcp_gb_s},
                                           {"lossy_remote_gb_s", r->lossy_remote_gb_s},
                                           {"inproc_us", r->inproc_us},
                                           {"remote_small_rtt_us", r->remote_small_rtt_us},
                                           {"raw_tcp_small_rtt_us", r->raw_tcp_small_rtt_us},
                                           {"raw_tcp_small_rtt_same_core_us", OrNull(r->pinned.same_core_us)},
                                           {"raw_tcp_small_rtt_across_cores_us",
                                            OrNull(r->pinned.across_cores_us)},
                                           {"small_rtt_over_raw_tcp", Spread(r->small_rtt_ratio)},
                                           {"remote_step_us", r->remote_step_us},
                                           {"inproc_pair_endpoint_ns", r->pair_endpoint_ns},
                                           {"inproc_pair_table_ns", r->pair_table_ns}};
      if (!opts->json) {
        std::printf("remote %.2f GB/s (raw TCP %.2f, %.2fx), lossy %.2f GB/s; in-process %.1f us; "
                    "small round trip %.1f us (raw TCP %.1f us, %.1fx by round); a step on one worker %.1f us; "
                    "a Send/Recv pair in one process %.0f ns through endpoint actors, %.0f ns through "
                    "the step's table\n",
                    r->remote_gb_s, r->raw_tcp_gb_s, r->remote_gb_s / r->raw_tcp_gb_s,
                    r->lossy_remote_gb_s, r->inproc_us, r->remote_small_rtt_us,
                    r->raw_tcp_small_rtt_us, Median(r->small_rtt_ratio),
                    r->remote_step_us, r->pair_endpoint_ns, r->pair_table_ns);
      }
      std::printf("%s\n", line.dump().c_str());
      return 0;
    };
  });
}

}  // namespace tact::apps
