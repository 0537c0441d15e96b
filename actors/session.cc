#include "actors/session.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "actors/actor_scheduler.h"
#include "actors/caf_thread_scope.h"
#include "actors/cluster_connect.h"
#include "actors/inline_unit.h"
#include "actors/master_handle.h"
#include "actors/master_links.h"
#include "actors/messages.h"
#include "actors/rendezvous_mgr.h"
#include "actors/socket_io.h"
#include "actors/supervisor.h"
#include "actors/wire_auth.h"
#include "devices/device_factory.h"
#include "kernels/resource_mgr.h"

namespace tact {
namespace {

// Client threads of this process spinning in Latch::Wait now, and how
// many may: one core is left to the threads computing their steps.
std::atomic<int> spinning_waiters{0};
const int kMaxSpinningWaiters = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);

// A one-shot value a client thread waits for while the actors work.
template <typename T>
class Latch {
 public:
  void Set(T value) {
    std::lock_guard<std::mutex> lock(mu_);
    value_.emplace(std::move(value));
    ready_.store(true, std::memory_order_release);
    cv_.notify_one();
  }
  T Wait() {
    // A small step finishes within tens of microseconds: spinning that long
    // (yielding the core) saves the sleeping thread's wake-up. But only as
    // many waiters spin as leave a core to the step's own threads: four
    // clients of one Session spinning on two cores took the cores from
    // the kernels they waited for, and served fewer requests than one
    // (`tact bench serve`, docs/performance.md).
    if (spinning_waiters.fetch_add(1, std::memory_order_relaxed) < kMaxSpinningWaiters) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (!ready_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    spinning_waiters.fetch_sub(1, std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return value_.has_value(); });
    return std::move(*value_);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<T> value_;
  std::atomic<bool> ready_{false};
};

// The client's side of a session: its calls go to a master actor, in this
// process, whose devices are either this process's own (a local session)
// or those of a cluster's tasks.
class ActorSession final : public Session {
  // A local session's devices live and die with it, so their incarnation
  // never changes.
  static constexpr uint64_t kLocalIncarnation = 1;

 public:
  // `secret` empty: no networking.
  explicit ActorSession(const std::string& secret, const ClusterTls& tls = {}) {
    // Compute runs on the device's pools; CAF only routes messages, on one
    // scheduler thread (actors/actor_scheduler.h says why it polls).
    UseActorScheduler(cfg_);
    AddRuntimeMessageTypes(cfg_);
    if (!secret.empty()) {
      UseNetworking(cfg_, tls);
      UseClusterSecret(cfg_, secret);
      // Over TLS every tensor goes through CAF's encrypted connections.
      if (!tls.enabled()) link_key_ = ClusterKey(secret);
    }
    system_ = std::make_unique<caf::actor_system>(cfg_);
  }

  void StartLocal(const SessionOptions& options, std::vector<std::unique_ptr<Device>> devices) {
    devices_ = std::move(devices);
    container_ = options.default_container.empty()
                     ? ResourceMgr::Global()->NewPrivateContainerName("session")
                     : options.default_container;
    private_container_ = options.default_container.empty();
    std::vector<DeviceEndpoint> endpoints;
    for (const auto& d : devices_) {
      device_actors_.push_back(SpawnDeviceActor(*system_, d.get(), kLocalIncarnation, rendezvous_));
      const std::string task = d->name().substr(0, d->name().find("/device:"));
      endpoints.push_back(DeviceEndpoint{d->name(), device_actors_.back(), task, kLocalIncarnation, "", 0});
    }
    StartMaster(options, std::move(endpoints), 0, 0);
  }

  // Variables that name no container live in the tasks' default one, so
  // that they outlive this client (a parameter server's job).
  Status StartCluster(const SessionOptions& options) {
    container_ = options.default_container;
    if (!link_key_.empty()) {
      TACT_ASSIGN_OR_RETURN(std::unique_ptr<MasterLinks> links,
                            MasterLinks::Start(ClientName(), ListenHost(*options.cluster), link_key_));
      links_ = std::move(links);
    }
    TACT_ASSIGN_OR_RETURN(
        std::vector<DeviceEndpoint> endpoints,
        ConnectCluster(*system_, *options.cluster,
                       std::chrono::milliseconds(options.connect_timeout_ms)));
    for (const std::string& task : options.cluster->Tasks()) {
      task_addresses_[task] = *options.cluster->Address(task);
    }
    StartMaster(options, std::move(endpoints), options.health_interval_ms, options.health_timeout_ms);
    return Status::OK();
  }

  ~ActorSession() override {
    Close();
    // The actor system waits for every actor, the detached supervisor's
    // thread for its last handle to go: drop the session's.
    {
      std::lock_guard<std::mutex> lock(restart_mu_);
      master_options_ = MasterOptions();
    }
    master_->Set(caf::actor());
    // Before the system ends: the master runs on the link reader that
    // tells it a StepDone, and the callback holds it.
    if (links_ != nullptr) links_->SetOnStepDone(nullptr);
    // An actor that ended on a thread of ours (a device's, the client's)
    // may still be finishing there (actors/inline_unit.h).
    if (system_ != nullptr) AwaitActorsDone(*system_);
    system_.reset();
  }

  Status Extend(const GraphDef& graph) override {
    InFlight guard(this);
    if (closed_) return Closed();
    TACT_ASSIGN_OR_RETURN(caf::actor master, master_->Get());
    auto call = std::make_shared<ExtendCall>();
    call->graph = graph;
    auto latch = std::make_shared<Latch<Status>>();
    call->reply = [latch](Status s) { latch->Set(std::move(s)); };
    // Held while the master extends, so that a restarted master gets the
    // graph with or without this part, never half of it.
    std::lock_guard<std::mutex> lock(restart_mu_);
    caf::anon_send(master, std::move(call));
    Status s = latch->Wait();
    if (s.ok()) extended_.nodes.insert(extended_.nodes.end(), graph.nodes.begin(), graph.nodes.end());
    return s;
  }

  void CrashMaster() {
    StatusOr<caf::actor> master = master_->Get();
    if (master.ok()) caf::anon_send(*master, crash_atom::value);
  }

  using Session::Run;
  StatusOr<std::vector<Tensor>> Run(const RunOptions& options,
                                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    const std::vector<std::string>& fetches,
                                    const std::vector<std::string>& targets,
                                    RunMetadata* metadata) override {
    InFlight guard(this);
    if (closed_) return Closed();
    TACT_RETURN_IF_ERROR(CheckRunOptions(options));
    std::shared_ptr<RunCall> call = NewCall(options, feeds, fetches, targets, metadata);
    auto latch = std::make_shared<Latch<StatusOr<std::vector<Tensor>>>>();
    call->reply = [latch](StatusOr<std::vector<Tensor>> r) { latch->Set(std::move(r)); };
    Tell(std::move(call));
    return latch->Wait();
  }

  void RunAsync(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                RunDone done, RunMetadata* metadata) override {
    // Held by the reply: in flight until answered, as a Run until it returns.
    auto guard = std::make_shared<InFlight>(this);
    Status s = closed_ ? Closed() : CheckRunOptions(options);
    if (!s.ok()) {
      done(s);
      return;
    }
    std::shared_ptr<RunCall> call = NewCall(options, feeds, fetches, targets, metadata);
    call->reply = [done = std::move(done), guard](StatusOr<std::vector<Tensor>> r) mutable {
      done(std::move(r));
      guard.reset();
    };
    Tell(std::move(call));
  }

  std::unique_ptr<PendingRun> StartFollowing(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                             const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets) override {
    auto pending = std::make_unique<Pending>();
    // Held by the reply: in flight until answered, as a Run until it returns.
    auto guard = std::make_shared<InFlight>(this);
    if (closed_) {
      pending->latch->Set(Closed());
      return pending;
    }
    std::shared_ptr<RunCall> call = NewCall(RunOptions{}, feeds, fetches, targets, nullptr);
    call->follow = true;
    call->reply = [latch = pending->latch, guard](StatusOr<std::vector<Tensor>> r) mutable {
      latch->Set(std::move(r));
      guard.reset();
    };
    Tell(std::move(call));
    return pending;
  }

  Status Close() override {
    if (closed_.exchange(true)) return Status::OK();
    StatusOr<caf::actor> master = master_->Get();
    // Every Run still in flight gets its answer (Cancelled, unless it
    // finishes first) from the master, so the master ends after them. A
    // master the supervisor gave up on has answered them already.
    if (master.ok() && *master) caf::anon_send(*master, close_atom::value);
    while (in_flight_.load() > 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (master.ok() && *master) caf::anon_send_exit(*master, caf::exit_reason::user_shutdown);
    for (const caf::actor& d : device_actors_) caf::anon_send_exit(d, caf::exit_reason::user_shutdown);
    if (private_container_) ResourceMgr::Global()->Reset(container_);
    return Status::OK();
  }

 private:
  // Counts a client call from before its closed_ check until it returns,
  // so that Close cannot end the master under it.
  class InFlight {
   public:
    explicit InFlight(ActorSession* s) : s_(s) { s_->in_flight_.fetch_add(1); }
    ~InFlight() { s_->in_flight_.fetch_sub(1); }

   private:
    ActorSession* s_;
  };

  static Status Closed() { return errors::FailedPrecondition("the session is closed"); }

  static Status CheckRunOptions(const RunOptions& options) {
    if (options.timeout_ms >= RunOptions::kNoTimeout) return Status::OK();
    return errors::InvalidArgument("RunOptions.timeout_ms is ", options.timeout_ms,
                                   "; give a limit in ms, 0 for the session's, or RunOptions::kNoTimeout");
  }

  static std::shared_ptr<RunCall> NewCall(const RunOptions& options,
                                          const std::vector<std::pair<std::string, Tensor>>& feeds,
                                          const std::vector<std::string>& fetches,
                                          const std::vector<std::string>& targets, RunMetadata* metadata) {
    auto call = std::make_shared<RunCall>();
    call->feeds = feeds;
    call->fetches = fetches;
    call->targets = targets;
    call->timeout_ms = options.timeout_ms;
    call->stats = metadata ? &metadata->step_stats : nullptr;
    return call;
  }

  // To the master on this thread while the master is idle: a local step's
  // actors then run here up to its first expensive kernel
  // (actors/inline_unit.h). Without a master, the call is answered why.
  void Tell(std::shared_ptr<RunCall> call) {
    StatusOr<caf::actor> master = master_->Get();
    if (!master.ok()) {
      call->reply(master.status());
      return;
    }
    TellInline(*master, std::move(call));
  }

  struct Pending final : PendingRun {
    ~Pending() override {
      if (!waited) latch->Wait();
    }
    StatusOr<std::vector<Tensor>> Wait() override {
      waited = true;
      return latch->Wait();
    }
    std::shared_ptr<Latch<StatusOr<std::vector<Tensor>>>> latch =
        std::make_shared<Latch<StatusOr<std::vector<Tensor>>>>();
    bool waited = false;
  };

  // Unique per session: each task keeps one link back to each master.
  static std::string ClientName() {
    char name[32];
    std::snprintf(name, sizeof name, "master-%016llx",
                  static_cast<unsigned long long>(std::random_device{}()) << 32 | std::random_device{}());
    return name;
  }

  // Where the tasks' StepDones arrive: loopback for a cluster on this
  // machine, else every interface (a link proves the cluster's secret
  // before a byte of it is read). A task reaches it at the address it sees
  // the master's connection come from, so a cluster with an IPv6 address
  // needs an IPv6 listener: "::" takes IPv4 peers too (as mapped
  // addresses), unless the machine's IPV6_V6ONLY default says otherwise.
  static std::string ListenHost(const ClusterSpec& cluster) {
    bool ipv6 = false, loopback = true;
    for (const std::string& task : cluster.Tasks()) {
      const std::string host = cluster.Address(task)->host;
      ipv6 = ipv6 || !HasIPv4Address(host);  // reached over IPv6 (actors/socket_io.h)
      loopback = loopback && (host == "localhost" || host.rfind("127.", 0) == 0);
    }
    if (ipv6) return "::";  // "::1" would refuse a task at "localhost", which connects over IPv4
    return loopback ? "127.0.0.1" : "0.0.0.0";
  }

  // The supervisor is the root of the session's actors: the master reports
  // lost tasks to it, and it starts a new master when the master dies.
  void StartMaster(const SessionOptions& options, std::vector<DeviceEndpoint> devices,
                   int64_t health_interval_ms, int64_t health_timeout_ms) {
    caf::actor supervisor = SpawnSupervisor(
        *system_, options.supervision,
        MasterRestart{[this] { return SpawnMaster(); },
                      [handle = master_](Status why) { handle->Fail(std::move(why)); }});
    std::unique_lock<std::mutex> lock(restart_mu_);
    MasterOptions& master = master_options_;
    master.supervisor = supervisor;
    master.task_wait_ms = options.supervision.task_wait_ms;
    master.on_task_lost = options.supervision.on_task_lost;
    master.on_task_back = options.supervision.on_task_back;
    master.devices = std::move(devices);
    master.container = container_;
    master.operation_timeout_ms = options.operation_timeout_ms;
    master.health_interval_ms = health_interval_ms;
    master.health_timeout_ms = health_timeout_ms;
    master.task_addresses = task_addresses_;
    master.allow_soft_placement = options.allow_soft_placement;
    master.schedule_recvs = options.schedule_recvs;
    master.lossy_float_transfer = options.lossy_float_transfer;
    master.placement_measure_steps = options.placement_measure_steps;
    master.placement_replace_threshold = options.placement_replace_threshold;
    master.placement_strategy = options.placement_strategy;
    master.placement_min_spread_gain = options.placement_min_spread_gain;
    master.links = links_;
    lock.unlock();
    Supervise(supervisor, SpawnMaster());
  }

  // A master with the session's options and the graph extended so far,
  // made the one the client's calls go to; on the supervisor's thread when
  // it restarts one. None once the session is closed.
  caf::actor SpawnMaster() {
    std::lock_guard<std::mutex> lock(restart_mu_);
    if (closed_) return caf::actor();
    caf::actor master = tact::SpawnMaster(*system_, master_options_);
    if (!extended_.nodes.empty()) {
      // Extended before any Run reaches it (one sender's messages keep
      // their order); it was valid before, so it is now.
      auto call = std::make_shared<ExtendCall>();
      call->graph = extended_;
      call->reply = [](Status) {};
      caf::anon_send(master, std::move(call));
    }
    if (links_ != nullptr) {
      links_->SetOnStepDone([master](WireStepDone done) { TellInline(master, std::move(done)); });
    }
    master_->Set(master);
    return master;
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::string container_;
  bool private_container_ = false;
  std::map<std::string, TaskAddress> task_addresses_;  // a cluster's
  std::shared_ptr<RendezvousMgr> rendezvous_ = std::make_shared<RendezvousMgr>();
  std::vector<caf::actor> device_actors_;  // one per device
  std::string link_key_;                // a cluster's, without TLS
  std::shared_ptr<MasterLinks> links_;  // with it
  std::shared_ptr<MasterHandle> master_ = std::make_shared<MasterHandle>();
  // What a restarted master is started with: the options, and the graph
  // every Extend added.
  std::mutex restart_mu_;
  MasterOptions master_options_;
  GraphDef extended_;
  std::atomic<bool> closed_{false};
  std::atomic<int> in_flight_{0};
};

}  // namespace

void CrashMaster(Session& session) {
  if (auto* s = dynamic_cast<ActorSession*>(&session)) s->CrashMaster();
}

StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options) {
  const CafThreadScope scope;  // the caller's thread spawns the session's actors
  if (options.intra_op_threads < 1) {
    return errors::InvalidArgument("SessionOptions.intra_op_threads must be >= 1, got ",
                                   options.intra_op_threads);
  }
  if (!(options.placement_min_spread_gain >= 0 && options.placement_min_spread_gain < 1)) {
    return errors::InvalidArgument("SessionOptions.placement_min_spread_gain must be in [0, 1), got ",
                                   options.placement_min_spread_gain);
  }
  if (options.cluster.has_value()) {
    if (options.health_interval_ms <= 0 || options.health_timeout_ms <= 0) {
      return errors::InvalidArgument(
          "SessionOptions.health_interval_ms and health_timeout_ms must be > 0 for a cluster");
    }
    const SupervisionOptions& sv = options.supervision;
    if (sv.task_wait_ms < 0 || (sv.max_restarts >= 0 && !(sv.restart_window_secs > 0))) {
      return errors::InvalidArgument(
          "SessionOptions.supervision: task_wait_ms must be >= 0 (got ", sv.task_wait_ms,
          ") and restart_window_secs > 0 when max_restarts is set (got ", sv.restart_window_secs, ")");
    }
    std::string secret = options.cluster_secret;
    if (secret.empty()) {
      TACT_ASSIGN_OR_RETURN(secret, FindClusterSecret(""));
    }
    if (secret.size() < 16) {
      return errors::InvalidArgument("SessionOptions.cluster_secret needs at least 16 characters");
    }
    TACT_RETURN_IF_ERROR(options.cluster_tls.Check().WithPrefix("SessionOptions.cluster_tls: "));
    auto session = std::make_unique<ActorSession>(secret, options.cluster_tls);
    TACT_RETURN_IF_ERROR(session->StartCluster(options));
    return std::unique_ptr<Session>(std::move(session));
  }
  TACT_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Device>> devices,
                        CreateDevices(options.device_count, "/job:localhost/replica:0/task:0",
                                      options.intra_op_threads));
  if (devices.empty()) return errors::InvalidArgument("SessionOptions.device_count names no device");
  auto session = std::make_unique<ActorSession>(/*secret=*/"");
  session->StartLocal(options, std::move(devices));
  return std::unique_ptr<Session>(std::move(session));
}

}  // namespace tact
