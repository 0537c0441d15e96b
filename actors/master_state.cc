// What a master leaves behind when it ends, on a crash or a bug as on
// Close (actors/master_state.h, ~MasterState).
#include "actors/master_state.h"

#include "actors/master_links.h"

namespace tact {

namespace {

template <typename M>
void SendToDeviceOf(const MasterOptions& options, const RegisteredPartition& p, const M& m) {
  for (const DeviceEndpoint& d : options.devices) {
    if (d.name == p.device) caf::anon_send(d.actor, m);
  }
}

}  // namespace

MasterState::~MasterState() {
  const Status gone = errors::Unavailable("the master that ran this step is gone");
  for (const auto& [step_id, step] : pending) {
    if (options.links != nullptr) options.links->ForgetStep(step_id);
    for (const RegisteredPartition& p : step.partitions) {
      const WireAbortStep abort{step_id, gone};
      // Through its device's (or task's) actor: ahead of anything a new
      // master registers there. And to its partition actor, behind the
      // RunStep it may not have taken yet.
      SendToDeviceOf(options, p, abort);
      if (p.actor) caf::anon_send(p.actor, abort);
    }
  }
  // The partitions it registered in this process (those it holds an actor
  // of): nothing else would drop them before the session closes, one set
  // per signature per master that died. A worker drops its own when it
  // sees the master gone.
  auto deregister = [&](const std::vector<RegisteredPartition>& parts) {
    for (const RegisteredPartition& p : parts) {
      if (p.actor) SendToDeviceOf(options, p, WireDeregisterPartition{p.handle});
    }
  };
  for (const auto& [key, sig] : signatures) deregister(sig.partitions);
  for (const auto& [generation, parts] : retired) deregister(parts);
}

}  // namespace tact
