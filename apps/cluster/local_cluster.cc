#include "apps/cluster/local_cluster.h"

#include "actors/wire_auth.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace tact::apps {

std::string CurrentExecutable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "tact";
}

namespace {

// How long a new process may take to say that it listens (a loaded
// machine, a cold disk) before its start has failed.
constexpr std::chrono::seconds kStartTimeout(30);

// The kernel's range for port 0 and for outgoing connections
// (/proc/sys/net/ipv4/ip_local_port_range; Linux's default if unreadable).
std::pair<int, int> EphemeralPorts() {
  std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range");
  int lo = 32768, hi = 60999;
  if (!(f >> lo >> hi) || lo > hi) return {32768, 60999};
  return {lo, hi};
}

// Whether `port` on 127.0.0.1 can be bound right now.
bool Bindable(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace

// A random port outside the ephemeral range. Why: the port is given to a
// task that binds it later, and a port from the ephemeral range (what
// binding port 0 returns) can be handed, in between, to another process's
// port-0 listener or outgoing connection; the task then cannot bind it,
// and its master reaches whatever took it. (Seen once beside other tests
// as "broke off the cluster's handshake"; this was the likely cause.)
//
// Nor does it give a port it gave recently: a port is free until its task
// binds it, so two picks before then could draw the same one. Drawn at
// random from 22,768, two of a cluster's three tasks got the same port in
// about one cluster in 7,600, and a test run starts hundreds of clusters
// (a clean-clone CI failed so: "address ... is given to two tasks").
StatusOr<uint16_t> FreeLoopbackPort() {
  constexpr size_t kRemembered = 4096;
  static std::mutex mu;
  static std::mt19937 rng(std::random_device{}());
  static std::deque<uint16_t> given;  // the newest kRemembered, oldest first
  static std::set<uint16_t> given_set;
  const auto [lo, hi] = EphemeralPorts();
  // Below the range if there is room there, else above it.
  const int first = lo > 11024 ? 10000 : hi + 1;
  const int last = lo > 11024 ? lo - 1 : 65535;
  if (first > last) return errors::Unavailable("no loopback ports outside the ephemeral range ", lo, "-", hi);
  std::lock_guard<std::mutex> lock(mu);
  std::uniform_int_distribution<int> pick(first, last);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const auto port = static_cast<uint16_t>(pick(rng));
    if (given_set.count(port) > 0 || !Bindable(port)) continue;
    given.push_back(port);
    given_set.insert(port);
    if (given.size() > kRemembered) {
      given_set.erase(given.front());
      given.pop_front();
    }
    return port;
  }
  return errors::Unavailable("no free loopback port in ", first, "-", last, " after 200 tries");
}

namespace {

constexpr char kDirPrefix[] = "tact_cluster_";
constexpr char kOwnerFile[] = "owner";  // the pid of the process whose cluster it is

// Removes the directories of this user's local clusters whose owner died
// without its destructor (SIGKILL, a crash): nothing else would, and each
// holds its tasks' logs.
void RemoveOrphanedDirs(const std::filesystem::path& tmp) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    struct stat st;
    if (name.rfind(kDirPrefix, 0) != 0 || stat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid()) {
      continue;
    }
    pid_t owner = 0;
    // No owner file: one being made, or kept on purpose ($TACT_KEEP_CLUSTER_DIR).
    if (!(std::ifstream(entry.path() / kOwnerFile) >> owner) || owner <= 0) continue;
    if (kill(owner, 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove_all(entry.path(), ec);
  }
}

// The last `max` characters of `text`, from a line's start where one is.
std::string Tail(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  const size_t from = text.find('\n', text.size() - max);
  return "...\n" + text.substr(from == std::string::npos ? text.size() - max : from + 1);
}

}  // namespace

StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Start(const LocalClusterOptions& o) {
  std::unique_ptr<LocalCluster> c(new LocalCluster());
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);  // $TMPDIR, or /tmp
  if (ec) return errors::Unavailable("no directory for temporary files: ", ec.message());
  RemoveOrphanedDirs(tmp);
  std::string dir_template = (tmp / (std::string(kDirPrefix) + "XXXXXX")).string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    return errors::Unavailable("cannot make a directory for the cluster under ", tmp.string(), ": ",
                               std::strerror(errno));
  }
  c->dir_ = dir_template;
  std::ofstream(c->dir_ + "/" + kOwnerFile) << getpid();
  c->secret_ = NewClusterSecret();
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TACT_CLUSTER_SECRET=", 20) != 0) c->env_.push_back(*e);
  }
  c->env_.push_back("TACT_CLUSTER_SECRET=" + c->secret_);
  // The tasks end with this process, even when it is killed before its
  // destructor runs (tact worker watches its parent: worker_command.cc).
  std::string parent = "TACT_PARENT_PID=";
  parent += std::to_string(getpid());
  c->env_.push_back(std::move(parent));
  // A port is free until its task binds it, and another process may bind
  // it first (two test processes that start clusters at once draw from one
  // range): then the whole cluster starts again on new ports.
  constexpr int kStartAttempts = 3;
  Status started;
  for (int attempt = 1; attempt <= kStartAttempts; ++attempt) {
    started = c->StartTasks(o);
    if (started.ok() || started.message().find("Address already in use") == std::string::npos) break;
    c->EndTasks();
  }
  TACT_RETURN_IF_ERROR(started);
  return c;
}

Status LocalCluster::StartTasks(const LocalClusterOptions& o) {
  spec_.jobs.clear();
  for (const auto& [job, count] : o.jobs) {
    for (int i = 0; i < count; ++i) {
      TACT_ASSIGN_OR_RETURN(uint16_t port, o.pick_port ? o.pick_port() : FreeLoopbackPort());
      spec_.jobs[job].push_back(TaskAddress{"127.0.0.1", port});
    }
  }
  const std::string spec_path = dir_ + "/cluster.json";
  std::ofstream(spec_path) << spec_.ToJson();
  for (const auto& [job, tasks] : spec_.jobs) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      const std::string task = TaskName(job, static_cast<int>(i));
      std::vector<std::string> args = {o.binary, "worker", "--cluster", spec_path, "--job", job,
                                       "--task", std::to_string(i), "--cpus",
                                       std::to_string(o.cpus_per_task), "--threads",
                                       std::to_string(o.threads_per_device)};
      if (o.tls.enabled()) {
        for (const std::string& a : {std::string("--tls-cert"), o.tls.certificate,
                                     std::string("--tls-key"), o.tls.key, std::string("--tls-ca"),
                                     o.tls.cafile}) {
          args.push_back(a);
        }
      }
      args_[task] = std::move(args);
      logs_[task] = dir_ + "/" + job + "_" + std::to_string(i) + ".log";
      TACT_RETURN_IF_ERROR(Spawn(task));
    }
  }
  return AwaitListening(kStartTimeout);
}

void LocalCluster::EndTasks() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [task, pid] : pids_) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  pids_.clear();
  std::error_code ignored;
  for (const auto& [task, log] : logs_) std::filesystem::remove(log, ignored);
}

Status LocalCluster::AwaitListening(std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> waiting;
  for (const auto& [task, pid] : pids_) waiting.push_back(task);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
    for (size_t i = 0; i < waiting.size();) {
      const std::string& task = waiting[i];
      if (Listening(task)) {
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      int status = 0;
      if (waitpid(pids_[task], &status, WNOHANG) == pids_[task]) {
        pids_.erase(task);  // reaped: its pid may be another process's by now
        const std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                                  : "was killed by signal " + std::to_string(WTERMSIG(status));
        return errors::Unavailable("task ", task, " ", how, " as it started; the end of what it printed:\n",
                                   Tail(Log(task), 2000));
      }
      ++i;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Status::OK();  // a task still starting is the session's to wait for
}

Status LocalCluster::Spawn(const std::string& task) {
  std::vector<char*> argv, envp;
  for (std::string& a : args_[task]) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  // Appended to, so that a restarted task's log keeps what the old one said.
  posix_spawn_file_actions_addopen(&files, 1, logs_[task].c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  // A process group of its own: a terminal's Ctrl-C reaches the trainer
  // alone, which then stops the run whole (apps/cli/train.cc) and ends
  // the tasks itself, instead of every task dying under a step.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &files, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) return errors::Unavailable("cannot start task ", task, " (", argv[0], "): ", std::strerror(rc));
  pids_[task] = pid;
  std::error_code ignored;
  const auto printed = std::filesystem::file_size(logs_[task], ignored);
  incarnations_[task] = Incarnation{ignored ? 0 : static_cast<std::streamoff>(printed),
                                    std::chrono::steady_clock::now(), std::nullopt};
  return Status::OK();
}

bool LocalCluster::Listening(const std::string& task) {
  Incarnation& newest = incarnations_[task];
  if (newest.listening) return true;
  std::ifstream f(logs_[task]);
  f.seekg(newest.log_start);
  const std::string printed(std::istreambuf_iterator<char>(f), {});
  // tact worker prints this line once its port is open
  // (apps/cli/worker_command.cc).
  if (printed.find(" listening on port ") == std::string::npos) return false;
  newest.listening = std::chrono::steady_clock::now();
  return true;
}

bool LocalCluster::TakenForHung(const std::string& task, std::chrono::milliseconds lost_for,
                                std::chrono::milliseconds hung_after) {
  const auto now = std::chrono::steady_clock::now();
  if (!Listening(task)) return now - incarnations_[task].started >= kStartTimeout;
  return lost_for >= hung_after && now - *incarnations_[task].listening >= hung_after;
}

Status LocalCluster::Restart(const std::string& task) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pids_.find(task);
  if (it == pids_.end()) return errors::NotFound("no task ", task, " in the local cluster");
  kill(it->second, SIGKILL);
  waitpid(it->second, nullptr, 0);
  return Spawn(task);
}

std::function<bool(const std::string&, std::chrono::milliseconds)> LocalCluster::Restarter(
    std::chrono::milliseconds hung_after) {
  return [this, hung_after](const std::string& task, std::chrono::milliseconds lost_for) {
    return BringBack(task, lost_for, hung_after);
  };
}

bool LocalCluster::BringBack(const std::string& task, std::chrono::milliseconds lost_for,
                             std::chrono::milliseconds hung_after) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pids_.find(task);
  if (it == pids_.end()) return false;
  if (waitpid(it->second, nullptr, WNOHANG) == 0) {  // still running
    // Not hung yet: starting, or back soon (a cut connection heals).
    if (!TakenForHung(task, lost_for, hung_after)) return false;
    kill(it->second, SIGKILL);
    waitpid(it->second, nullptr, 0);
  }
  return Spawn(task).ok();
}

Status LocalCluster::Pause(const std::string& task, int ms) {
  TACT_RETURN_IF_ERROR(Signal(task, SIGSTOP));
  std::lock_guard<std::mutex> lock(mu_);
  resumers_.emplace_back([this, task, ms] {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    (void)Signal(task, SIGCONT);
  });
  return Status::OK();
}

LocalCluster::~LocalCluster() {
  for (std::thread& t : resumers_) t.join();
  for (const auto& [task, pid] : pids_) kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (const auto& [task, pid] : pids_) {
    while (waitpid(pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const char* keep = std::getenv("TACT_KEEP_CLUSTER_DIR");
  std::error_code ignored;
  if (keep == nullptr || *keep == '\0') {
    std::filesystem::remove_all(dir_, ignored);
  } else {
    std::filesystem::remove(dir_ + "/" + kOwnerFile, ignored);  // kept: never an orphan to remove
  }
}

Status LocalCluster::Signal(const std::string& task, int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pids_.find(task);
  if (it == pids_.end()) return errors::NotFound("no task ", task, " in the local cluster");
  if (kill(it->second, signal) != 0) return errors::Internal("kill ", task, ": ", std::strerror(errno));
  return Status::OK();
}

pid_t LocalCluster::Pid(const std::string& task) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pids_.find(task);
  return it == pids_.end() ? 0 : it->second;
}

std::string LocalCluster::Log(const std::string& task) const {
  auto it = logs_.find(task);
  if (it == logs_.end()) return "";
  std::ifstream f(it->second);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace tact::apps
