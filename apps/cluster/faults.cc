#include "apps/cluster/faults.h"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "actors/session.h"
#include "checkpoint/checkpoint.h"

namespace tact::apps {

StatusOr<Fault> ParseFault(const std::string& spec) {
  auto bad = [&](const std::string& why) {
    return errors::InvalidArgument("--fault '", spec, "': ", why,
                                   " (kill:JOB:TASK@step=N, drop:JOB:TASK@step=N, pause:JOB:TASK@step=N, "
                                   "crash:JOB:TASK@step=N, corrupt-latest-checkpoint@step=N or "
                                   "crash-master@step=N)");
  };
  const size_t at = spec.find('@');
  if (at == std::string::npos) return bad("no @step=N or @checkpoint");
  Fault f;
  f.spec = spec;
  char* end = nullptr;
  const std::string when = spec.substr(at + 1);
  if (when == "checkpoint") {
    f.at_checkpoint = true;
  } else if (when.compare(0, 5, "step=") == 0) {
    const std::string n = when.substr(5);
    f.step = std::strtoll(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || f.step < 0) return bad("the step is not a number >= 0");
  } else {
    return bad("no @step=N or @checkpoint");
  }
  const std::string what = spec.substr(0, at);
  if (f.at_checkpoint && what.compare(0, 5, "kill:") != 0) return bad("only kill can happen @checkpoint");
  if (what == "corrupt-latest-checkpoint") {
    f.kind = Fault::Kind::kCorruptLatestCheckpoint;
    return f;
  }
  if (what == "crash-master") {
    f.kind = Fault::Kind::kCrashMaster;
    return f;
  }
  const size_t c1 = what.find(':'), c2 = what.find(':', c1 + 1);
  if (c1 == std::string::npos || c2 == std::string::npos) return bad("no JOB:TASK");
  const std::string kind = what.substr(0, c1), job = what.substr(c1 + 1, c2 - c1 - 1);
  const std::string index = what.substr(c2 + 1);
  if (kind == "kill") {
    f.kind = Fault::Kind::kKill;
  } else if (kind == "drop") {
    f.kind = Fault::Kind::kDrop;
  } else if (kind == "pause") {
    f.kind = Fault::Kind::kPause;
  } else if (kind == "crash") {
    f.kind = Fault::Kind::kCrash;
  } else {
    return bad("unknown fault '" + kind + "'");
  }
  const long task = std::strtol(index.c_str(), &end, 10);
  if (job.empty() || index.empty() || *end != '\0' || task < 0) return bad("bad JOB:TASK");
  f.task = TaskName(job, static_cast<int>(task));
  return f;
}

std::vector<std::string> ChaosFaults(uint64_t seed, int count, const std::vector<std::string>& tasks,
                                     int64_t steps) {
  std::mt19937_64 random(seed);
  std::vector<std::string> specs;
  for (int i = 0; i < count && steps > 1 && !tasks.empty(); ++i) {
    const int64_t step = 1 + static_cast<int64_t>(random() % static_cast<uint64_t>(steps - 1));
    // "/job:J/replica:0/task:T" -> "J:T"
    const std::string& task = tasks[random() % tasks.size()];
    const size_t job = task.find("/job:") + 5, replica = task.find("/replica:");
    const std::string who = task.substr(job, replica - job) + ":" + task.substr(task.rfind(':') + 1);
    switch (random() % 5) {
      case 0:
      case 1:
        specs.push_back("kill:" + who + "@step=" + std::to_string(step));
        break;
      case 2:
        specs.push_back("drop:" + who + "@step=" + std::to_string(step));
        break;
      case 3:
        specs.push_back("pause:" + who + "@step=" + std::to_string(step));
        break;
      default:
        specs.push_back("corrupt-latest-checkpoint@step=" + std::to_string(step));
    }
  }
  return specs;
}

namespace {

// Flips bytes in the middle of the newest checkpoint's first shard.
Status CorruptLatest(const std::string& dir) {
  TACT_ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpoints(dir));
  if (steps.empty()) return errors::FailedPrecondition("no checkpoint in ", dir, " to corrupt");
  const std::string step = std::to_string(steps.back());
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(step) == std::string::npos || entry.path().extension() != ".h5") continue;
    std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    const auto size = static_cast<std::streamoff>(std::filesystem::file_size(entry.path()));
    for (std::streamoff at = size / 2; at < size / 2 + 64 && at < size; ++at) {
      f.seekg(at);
      const char c = static_cast<char>(f.get() ^ 0x5a);
      f.seekp(at);
      f.put(c);
    }
    return Status::OK();
  }
  return errors::NotFound("no shard file of checkpoint ", step, " in ", dir);
}

}  // namespace

Status InjectFault(const Fault& fault, const FaultTarget& target) {
  if (fault.kind == Fault::Kind::kCorruptLatestCheckpoint) return CorruptLatest(target.checkpoint_dir);
  if (fault.kind == Fault::Kind::kCrashMaster) {
    if (target.session == nullptr) {
      return errors::FailedPrecondition("--fault '", fault.spec, "' needs a session");
    }
    CrashMaster(*target.session);
    return Status::OK();
  }
  LocalCluster* cluster = target.cluster;
  if (cluster == nullptr) {
    return errors::FailedPrecondition("--fault '", fault.spec, "' needs a local cluster (--workers)");
  }
  switch (fault.kind) {
    case Fault::Kind::kKill:
      return cluster->Signal(fault.task, SIGKILL);
    case Fault::Kind::kDrop:
      return cluster->Signal(fault.task, SIGUSR1);
    case Fault::Kind::kPause:
      return cluster->Pause(fault.task, target.pause_ms);
    case Fault::Kind::kCrash:
      return cluster->Signal(fault.task, SIGUSR2);
    case Fault::Kind::kCorruptLatestCheckpoint:
    case Fault::Kind::kCrashMaster:
      break;
  }
  return Status::OK();
}

}  // namespace tact::apps
