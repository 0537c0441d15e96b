// The faults of one run (apps/cluster/faults.h), injected into a local
// cluster as the run goes: each before its step, or while the next
// checkpoint is written. Holds the threads of the kills it times.
//
//   FaultPlan faults({cluster, nullptr, checkpoint_dir});
//   TACT_RETURN_IF_ERROR(faults.Init(specs, chaos_seed, chaos_faults, total_steps));
//   ... once the session exists: faults.set_session(&session->session());
//   session->set_before_save([&](int64_t) { faults.StartCheckpointKills(); });
//   ... before each step: TACT_RETURN_IF_ERROR(faults.InjectBefore(step));
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "apps/cluster/faults.h"

namespace tact::apps {

class FaultPlan {
 public:
  // target.cluster may be null (a run in one process, or on someone else's
  // cluster): then only checkpoint corruptions and master crashes can be
  // injected.
  explicit FaultPlan(FaultTarget target);
  ~FaultPlan();
  FaultPlan(const FaultPlan&) = delete;
  FaultPlan& operator=(const FaultPlan&) = delete;

  // Parses `specs`, and draws `chaos_faults` more from `chaos_seed` over
  // `total_steps` (which needs a local cluster).
  Status Init(const std::vector<std::string>& specs, uint64_t chaos_seed, int chaos_faults,
              int64_t total_steps);

  // Injects the faults due before step `step` (0-based), each once.
  Status InjectBefore(int64_t step);
  // Whether InjectBefore(step) would inject one.
  bool DueBefore(int64_t step) const;
  // Starts the kills due "@checkpoint": they land 1 ms later, while the
  // checkpoint is written.
  void StartCheckpointKills();

  void set_session(Session* session) { target_.session = session; }
  int injected() const { return injected_; }

 private:
  void JoinKills();

  FaultTarget target_;
  std::vector<Fault> faults_;
  std::set<std::string> done_;  // faults injected, by spec
  std::vector<std::thread> kills_;
  int injected_ = 0;
};

}  // namespace tact::apps
