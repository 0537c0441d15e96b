#include "apps/cluster/fault_plan.h"

#include <signal.h>

#include <algorithm>
#include <chrono>

namespace tact::apps {

FaultPlan::FaultPlan(FaultTarget target) : target_(std::move(target)) {}

FaultPlan::~FaultPlan() { JoinKills(); }

Status FaultPlan::Init(const std::vector<std::string>& specs, uint64_t chaos_seed, int chaos_faults,
                       int64_t total_steps) {
  std::vector<std::string> all = specs;
  if (chaos_faults > 0) {
    if (target_.cluster == nullptr) {
      return errors::InvalidArgument("--chaos needs a local cluster (--workers)");
    }
    for (std::string& f :
         ChaosFaults(chaos_seed, chaos_faults, target_.cluster->spec().Tasks(), total_steps)) {
      all.push_back(std::move(f));
    }
  }
  for (const std::string& f : all) {
    TACT_ASSIGN_OR_RETURN(Fault fault, ParseFault(f));
    faults_.push_back(std::move(fault));
  }
  return Status::OK();
}

Status FaultPlan::InjectBefore(int64_t step) {
  JoinKills();
  for (const Fault& f : faults_) {
    if (f.at_checkpoint || f.step != step || done_.count(f.spec)) continue;
    done_.insert(f.spec);
    TACT_RETURN_IF_ERROR(InjectFault(f, target_));
    ++injected_;
  }
  return Status::OK();
}

bool FaultPlan::DueBefore(int64_t step) const {
  return std::any_of(faults_.begin(), faults_.end(), [&](const Fault& f) {
    return !f.at_checkpoint && f.step == step && done_.count(f.spec) == 0;
  });
}

void FaultPlan::StartCheckpointKills() {
  for (const Fault& f : faults_) {
    if (!f.at_checkpoint || done_.count(f.spec) || target_.cluster == nullptr) continue;
    done_.insert(f.spec);
    kills_.emplace_back([cluster = target_.cluster, task = f.task] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      (void)cluster->Signal(task, SIGKILL);
    });
    ++injected_;
  }
}

void FaultPlan::JoinKills() {
  for (std::thread& t : kills_) t.join();
  kills_.clear();
}

}  // namespace tact::apps
