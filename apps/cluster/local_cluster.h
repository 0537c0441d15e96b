// A cluster of `tact worker` child processes on free loopback ports: what
// `tact train --ps P --workers W` starts when given no cluster, and what
// the distributed tests run against (real processes, real sockets).
//
//   LocalClusterOptions o;
//   o.binary = "/path/to/tact";
//   o.jobs = {{"ps", 1}, {"worker", 2}};
//   auto cluster = LocalCluster::Start(o);
//   SessionOptions s;
//   s.cluster = (*cluster)->spec();
//
// The destructor ends every child (SIGTERM, then SIGKILL), reaps it, and
// removes the cluster's directory (dir(), under $TMPDIR or /tmp), unless
// $TACT_KEEP_CLUSTER_DIR is set: then the tasks' logs stay. A child ends by
// itself when this process dies without its destructor (SIGKILL), and the
// next Start removes that process's directory. Each child is in a process
// group of its own, out of reach of a terminal's Ctrl-C.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/cluster_spec.h"

namespace tact::apps {

struct LocalClusterOptions {
  std::string binary;                                     // the tact executable
  std::map<std::string, int> jobs = {{"worker", 1}};     // job -> tasks
  int cpus_per_task = 1;
  int threads_per_device = 1;
  ClusterTls tls;  // the tasks listen with TLS when enabled
  // Where each task's port comes from; empty: FreeLoopbackPort. (Tests
  // hand out a taken port to see the start try again.)
  std::function<StatusOr<uint16_t>()> pick_port;
};

class LocalCluster {
 public:
  // Starts every task and returns once each says it listens (or 30 s have
  // passed: a slow task is the session's to wait for). A task that exits
  // as it starts is an error naming it, with the end of its output; one
  // that could not listen because another process took its port first has
  // every task started again on new ports (up to 3 times in all).
  static StatusOr<std::unique_ptr<LocalCluster>> Start(const LocalClusterOptions& options);
  ~LocalCluster();

  const ClusterSpec& spec() const { return spec_; }
  // The secret made for this cluster (its tasks get it in their
  // environment, not on their command line, where `ps` would show it).
  const std::string& secret() const { return secret_; }
  // The directory with the spec (cluster.json) and each task's output
  // (<job>_<index>.log).
  const std::string& dir() const { return dir_; }
  // Sends `signal` to a task's process ("/job:worker/replica:0/task:1").
  Status Signal(const std::string& task, int signal);
  // Kills the task's process if it still runs, and starts a new one in its
  // place (same address, a new incarnation).
  Status Restart(const std::string& task);
  // A supervisor's restart (SupervisionOptions::restart_task) for a task
  // lost `lost_for` ago: starts its process again if it has exited, or if
  // it still runs after `hung_after` (killed first); returns whether it did.
  // A process is given time to come up before it can be taken for hung:
  // until it says that it listens it is starting (killed only after 30 s,
  // as at the cluster's start), and after that it is hung only once
  // `hung_after` has passed since it was first seen listening. Otherwise,
  // on a machine where starting takes longer than `hung_after`, every new
  // process would be killed before it could be attached.
  bool BringBack(const std::string& task, std::chrono::milliseconds lost_for,
                 std::chrono::milliseconds hung_after);
  // BringBack as a session's supervisor calls it: what to put in
  // SupervisionOptions::restart_task. A task still running `hung_after`
  // after it was lost is taken for hung: killed and started again. The
  // cluster must outlive the session.
  std::function<bool(const std::string&, std::chrono::milliseconds)> Restarter(
      std::chrono::milliseconds hung_after = std::chrono::seconds(10));
  // Stops the task's process (SIGSTOP) and resumes it `ms` later: its
  // connections go silent as if cut, then heal.
  Status Pause(const std::string& task, int ms);
  // The task's process id now (0 for a task not in the cluster).
  pid_t Pid(const std::string& task) const;
  // What a task's process printed so far.
  std::string Log(const std::string& task) const;

 private:
  LocalCluster() = default;
  // Picks the ports, writes the spec and starts every task.
  Status StartTasks(const LocalClusterOptions& options);
  // Kills and reaps every task, and removes their logs: after a start
  // that failed, before the next.
  void EndTasks();
  Status Spawn(const std::string& task);  // with mu_ held, once started
  // Whether `task`'s running process, lost `lost_for` ago, is hung (see
  // BringBack); with mu_ held.
  bool TakenForHung(const std::string& task, std::chrono::milliseconds lost_for,
                    std::chrono::milliseconds hung_after);
  // Whether `task`'s newest process has said that it listens; with mu_
  // held.
  bool Listening(const std::string& task);
  // Waits up to `timeout` for every task to say that it listens. A task
  // that exits first (its port taken since FreeLoopbackPort chose it, a
  // crash) fails it: Unavailable naming the task, how it ended and the end
  // of its output, which the cluster's directory would take with it.
  Status AwaitListening(std::chrono::milliseconds timeout);
  // Callers' threads (the client's, a session's supervisor, the resumers)
  // share the processes' table.
  mutable std::mutex mu_;
  ClusterSpec spec_;
  std::vector<std::string> env_;                          // the tasks' environment
  std::map<std::string, std::vector<std::string>> args_;  // by task name
  std::vector<std::thread> resumers_;  // of paused tasks, joined at the end
  std::string secret_;
  std::string dir_;
  std::map<std::string, pid_t> pids_;        // by task name
  std::map<std::string, std::string> logs_;  // by task name
  // A task's newest process: where its output starts in the log (which
  // keeps what earlier ones printed), when it was started, and when it was
  // first seen listening.
  struct Incarnation {
    std::streamoff log_start = 0;
    std::chrono::steady_clock::time_point started;
    std::optional<std::chrono::steady_clock::time_point> listening;
  };
  std::map<std::string, Incarnation> incarnations_;  // by task name
};

// The running executable (from /proc/self/exe): what a local cluster's
// tasks run as `tact worker` when `tact` itself starts them.
std::string CurrentExecutable();

// A TCP port on 127.0.0.1 that nothing listens on right now, outside the
// kernel's ephemeral range, so that no port-0 listener or outgoing
// connection of another process takes it before its task binds it; and
// none of the last 4,096 this process was given, so that two tasks never
// get the same one.
StatusOr<uint16_t> FreeLoopbackPort();

}  // namespace tact::apps
