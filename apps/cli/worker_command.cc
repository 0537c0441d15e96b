// `tact worker --cluster FILE --job J --task T [--cpus N] [--threads N]`:
// one task of a cluster (actors/worker.h). Without --cluster the spec comes
// from TF_CONFIG, and without --job/--task from the spec's "task". It
// prints one line once it listens, then serves until SIGINT or SIGTERM,
// and ends with a line of how many steps still hold a rendezvous (0 unless
// one leaked) and one of what it decoded (actors/wire_counts.h).
// Fault injection: SIGUSR1 cuts its connections (see CutConnections);
// SIGUSR2 ends one of its actors as a bug would, and the process exits.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "actors/wire_auth.h"
#include "actors/wire_counts.h"
#include "actors/worker.h"
#include "apps/cli/commands.h"

namespace tact::apps {
namespace {

// The exit status of a worker one of whose actors ended abnormally
// (EX_SOFTWARE).
constexpr int kActorFailedExit = 70;

struct WorkerFlags {
  std::string cluster;
  std::string job;
  int task = -1;
  int cpus = 1;
  int threads = 2;
  std::string bind;
  std::string secret_file;
  ClusterTls tls;
};

StatusOr<WorkerOptions> ToOptions(const WorkerFlags& f) {
  WorkerOptions o;
  if (!f.cluster.empty()) {
    TACT_ASSIGN_OR_RETURN(o.cluster, ClusterSpec::FromFile(f.cluster));
  } else {
    StatusOr<ClusterSpec> env = ClusterSpec::FromEnvironment();
    if (!env.ok()) return errors::InvalidArgument("give --cluster FILE or set TF_CONFIG (", env.status().message(), ")");
    o.cluster = std::move(env).value();
  }
  o.job = f.job.empty() ? o.cluster.task_type : f.job;
  o.task = f.task < 0 ? o.cluster.task_index : f.task;
  if (o.job.empty() || o.task < 0) {
    return errors::InvalidArgument("which task is this? give --job and --task, or \"task\" in the spec");
  }
  if (f.cpus < 1 || f.threads < 1) return errors::InvalidArgument("--cpus and --threads must be at least 1");
  o.device_count = {{"CPU", f.cpus}};
  o.intra_op_threads = f.threads;
  o.bind_host = f.bind;
  TACT_ASSIGN_OR_RETURN(o.secret, FindClusterSecret(f.secret_file));
  o.tls = f.tls;
  o.on_actor_failure = [](const Status& why) {
    // No cleanup: the state is suspect, and the checkpoints on disk are
    // what a new process starts from.
    std::fprintf(stderr, "tact worker: %s; exiting, to be started afresh\n", why.message().c_str());
    std::fflush(stderr);
    std::_Exit(kActorFailedExit);
  };
  return o;
}

// SIGUSR1 (fault injection: `tact train --fault drop:...`): shuts down
// every connected TCP socket of this process, as a network partition
// would, and keeps serving: the listening sockets stay, so the master and
// the peers can connect again to the same process.
int CutConnections() {
  int cut = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::atoi(entry.path().filename().c_str());
    struct stat st;
    int listening = 0;
    socklen_t len = sizeof listening;
    sockaddr_storage peer;
    socklen_t peer_len = sizeof peer;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening) continue;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) continue;
    if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6) continue;  // not the network's
    if (shutdown(fd, SHUT_RDWR) == 0) ++cut;
  }
  return cut;
}

// With $TACT_PARENT_PID set (a local cluster's task), the worker ends
// when that process does: it is reparented then, and a thread that checks
// every 200 ms raises SIGTERM. Otherwise a killed trainer or test would
// leave its tasks running, holding their ports.
void ExitWithParent() {
  const char* env = std::getenv("TACT_PARENT_PID");
  if (env == nullptr) return;
  const pid_t parent = static_cast<pid_t>(std::atol(env));
  std::thread([parent] {
    while (getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::fprintf(stderr, "tact worker: the process that started it (%d) is gone; exiting\n", parent);
    kill(getpid(), SIGTERM);
  }).detach();
}

// The signals a worker acts on, each written to a pipe by its handler and
// read by the main thread. Not sigwait: threads that started before main
// (OpenBLAS's) never block them, so one that arrived while the main thread
// was busy with the last would take a blocking thread's default action and
// end the process (seen: a worker killed by its SIGUSR1 in ~1 of 40 cuts).
int signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  const int saved = errno;
  (void)!write(signal_pipe[1], &b, 1);
  errno = saved;
}

int NextSignal() {
  unsigned char b = 0;
  for (;;) {
    const ssize_t r = read(signal_pipe[0], &b, 1);
    if (r == 1) return b;
    if (r < 0 && errno == EINTR) continue;
    return SIGTERM;
  }
}

int RunWorker(const WorkerFlags& flags) {
  if (pipe2(signal_pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "tact worker: cannot make its signal pipe: %s\n", std::strerror(errno));
    return 1;
  }
  struct sigaction action {};
  action.sa_handler = OnSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2}) sigaction(sig, &action, nullptr);
  StatusOr<WorkerOptions> options = ToOptions(flags);
  StatusOr<std::unique_ptr<Worker>> worker =
      options.ok() ? Worker::Start(*options) : StatusOr<std::unique_ptr<Worker>>(options.status());
  if (!worker.ok()) {
    std::fprintf(stderr, "tact worker: %s\n", worker.status().ToString().c_str());
    return 1;
  }
  std::printf("tact worker %s listening on port %u, incarnation %llu\n", (*worker)->task().c_str(),
              static_cast<unsigned>((*worker)->port()),
              static_cast<unsigned long long>((*worker)->incarnation()));
  std::fflush(stdout);
  ExitWithParent();
  for (int sig = NextSignal(); sig == SIGUSR1 || sig == SIGUSR2; sig = NextSignal()) {
    if (sig == SIGUSR2) {  // fault injection: the process exits through on_actor_failure
      (*worker)->CrashAnActor();
      continue;
    }
    std::fprintf(stderr, "tact worker %s: cut %d connections (SIGUSR1)\n", (*worker)->task().c_str(),
                 CutConnections());
  }
  // Its last line: what it decoded from other processes (after the worker
  // has stopped, so that nothing more arrives).
  const std::string task = (*worker)->task();
  std::printf("tact worker %s holds the rendezvous of %zu steps\n", task.c_str(),
              (*worker)->RendezvousSteps());
  (*worker).reset();
  std::printf("tact worker %s decoded %s\n", task.c_str(), DecodeCountsJson().c_str());
  return 0;
}

}  // namespace

void AddWorkerCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<WorkerFlags>();
  CLI::App* cmd = app.add_subcommand("worker", "serve one task of a cluster");
  cmd->add_option("--cluster", flags->cluster, "TF_CONFIG-style JSON file (default: $TF_CONFIG)");
  cmd->add_option("--job", flags->job, "this task's job (default: the spec's task.type)");
  cmd->add_option("--task", flags->task, "this task's index (default: the spec's task.index)")
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--cpus", flags->cpus, "CPU devices to host");
  cmd->add_option("--threads", flags->threads, "compute threads per device");
  cmd->add_option("--bind", flags->bind, "interface to listen on (default: the task's host in the spec)");
  cmd->add_option("--secret-file", flags->secret_file,
                  "file holding the cluster's secret (default: $TACT_CLUSTER_SECRET)");
  cmd->add_option("--tls-cert", flags->tls.certificate, "TLS: this task's certificate (PEM)");
  cmd->add_option("--tls-key", flags->tls.key, "TLS: the certificate's private key (PEM)");
  cmd->add_option("--tls-ca", flags->tls.cafile, "TLS: the CA that signed every peer's certificate");
  cmd->callback([flags, &run] { run = [flags] { return RunWorker(*flags); }; });
}

}  // namespace tact::apps
