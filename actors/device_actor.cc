// The device actor (paper 3: a worker "arbitrates access to one or more
// computational devices"): one per device. The master registers each
// partition placed here with a message, so that registration reads the
// same whether the master is in this process or another; the device actor
// builds the partition's executor and spawns its partition actor.
#include <map>
#include <set>

#include "actors/messages.h"
#include "actors/partition.h"
#include "actors/rendezvous_mgr.h"
#include "actors/task_steps.h"
#include "graph/graph.h"
#include "graph/subgraph.h"

namespace tact {
namespace {

struct DeviceState {
  Device* device = nullptr;
  uint64_t incarnation = 0;
  std::shared_ptr<RendezvousMgr> rendezvous;
  std::shared_ptr<TaskSteps> steps;  // a worker's
  struct Registered {
    caf::actor actor;
    Endpoints::Keys endpoints;  // those its registration added
    std::shared_ptr<Partition> partition;
  };
  std::map<std::string, Registered> partitions;  // by handle
};

using Self = caf::stateful_actor<DeviceState>;

// A registration's feeds and fetches must be exactly the graph's client
// _Recvs and _Sends: a _Recv nobody feeds, or a fetch nobody sends, would
// leave every step waiting.
Status CheckClientTensors(const WireRegisterPartition& reg) {
  const std::vector<std::string> recv_list = ClientTensors(reg.graph, "_Recv");
  const std::vector<std::string> send_list = ClientTensors(reg.graph, "_Send");
  const std::set<std::string> recvs(recv_list.begin(), recv_list.end());
  const std::set<std::string> sends(send_list.begin(), send_list.end());
  const std::set<std::string> feeds(reg.feeds.begin(), reg.feeds.end());
  for (const std::string& r : recvs) {
    if (!feeds.count(r)) return errors::InvalidArgument("the graph receives '", r, "' but it is not a feed");
  }
  for (const std::string& f : feeds) {
    if (!recvs.count(f)) return errors::InvalidArgument("feed '", f, "' has no _Recv in the graph");
  }
  for (const std::string& f : reg.fetches) {
    if (!sends.count(f)) return errors::InvalidArgument("fetch '", f, "' has no _Send in the graph");
  }
  return Status::OK();
}

// Checks a registration and builds the executor its partition runs.
StatusOr<std::shared_ptr<const Executor>> BuildPartition(const DeviceState& st,
                                                         const WireRegisterPartition& reg) {
  if (reg.handle.empty()) return errors::InvalidArgument("RegisterPartition has an empty handle");
  if (st.partitions.count(reg.handle)) {
    return errors::AlreadyExists("partition '", reg.handle, "' is already registered on ",
                                 st.device->name());
  }
  if (reg.device != st.device->name()) {
    return errors::InvalidArgument("partition '", reg.handle, "' is for device '", reg.device,
                                   "' but was sent to ", st.device->name());
  }
  const std::string prefix = "partition '" + reg.handle + "': ";
  Status s = CheckClientTensors(reg);
  if (!s.ok()) return s.WithPrefix(prefix);
  StatusOr<std::unique_ptr<Graph>> graph = Graph::FromGraphDef(reg.graph);
  if (!graph.ok()) return graph.status().WithPrefix(prefix);
  StatusOr<std::unique_ptr<Executor>> ex =
      Executor::Create(std::shared_ptr<const Graph>(std::move(graph).value()), st.device);
  if (!ex.ok()) return ex.status().WithPrefix(prefix);
  return std::shared_ptr<const Executor>(std::move(ex).value());
}

// Steps still running hold what they use; `master_gone` (not OK): their
// master will not end them, so they are aborted with it. Unlinked first,
// so that the partition's end is not taken for a failure of this actor.
// Its endpoints go with it unless another partition holds them.
void DropPartition(Self* self, const std::string& handle, const Status& master_gone = Status::OK()) {
  auto it = self->state.partitions.find(handle);
  if (it == self->state.partitions.end()) return;
  if (!master_gone.ok()) it->second.partition->AbortUnended(master_gone);
  self->unlink_from(it->second.actor);
  self->send_exit(it->second.actor, caf::exit_reason::user_shutdown);
  self->state.rendezvous->endpoints().Remove(it->second.endpoints);
  self->state.partitions.erase(it);
  if (self->state.steps != nullptr) self->state.steps->RemovePartition(handle);
}

caf::behavior DeviceBehavior(Self* self, Device* device, uint64_t incarnation,
                             std::shared_ptr<RendezvousMgr> rendezvous, std::shared_ptr<TaskSteps> steps) {
  self->state.device = device;
  self->state.steps = std::move(steps);
  self->state.incarnation = incarnation;
  self->state.rendezvous = std::move(rendezvous);
  return {
      // Building kernels is quick next to a step and happens once per
      // partition, so it runs here rather than on the device's threads.
      [self](WireRegisterPartition& reg) -> caf::result<WirePartitionRegistered> {
        StatusOr<std::shared_ptr<const Executor>> ex = BuildPartition(self->state, reg);
        if (!ex.ok()) return ToCafError(ex.status());
        // Its Send and Recv endpoints, before any step can use them.
        StatusOr<Endpoints::Keys> endpoints = self->state.rendezvous->endpoints().Add(self, reg.graph);
        if (!endpoints.ok()) {
          return ToCafError(endpoints.status().WithPrefix("partition '" + reg.handle + "': "));
        }
        const std::string handle = reg.handle;
        auto partition = std::make_shared<Partition>(self->state.device, std::move(ex).value(),
                                                     self->state.rendezvous, std::move(reg));
        caf::actor p = SpawnPartition(self, partition);
        self->state.partitions.emplace(handle,
                                       DeviceState::Registered{p, std::move(endpoints).value(), partition});
        if (self->state.steps != nullptr) self->state.steps->AddPartition(handle, std::move(partition));
        return WirePartitionRegistered{handle, self->state.device->name(), std::any(p)};
      },
      // A master in another process has no handle on the partition actor:
      // without a link to the task it sends steps here, by partition handle.
      // Delegated, so the partition answers the master itself.
      [self](WireRunStep& step) {
        auto it = self->state.partitions.find(step.handle);
        if (it != self->state.partitions.end()) {
          self->delegate(it->second.actor, std::move(step));
          return;
        }
        caf::anon_send(caf::actor_cast<caf::actor>(self->current_sender()),
                       NoSuchPartition(step, "device " + self->state.device->name()));
      },
      // Its master is gone, or deregistered it (actors/task_actor.h).
      [self](drop_partition_atom, const std::string& handle, const std::string& master_gone) {
        DropPartition(self, handle, master_gone.empty() ? Status::OK() : errors::Unavailable(master_gone));
      },
      // From a master in this process (a local session placed a Run again).
      [self](const WireDeregisterPartition& d) { DropPartition(self, d.handle); },
      // An abort is for a step, whichever of the device's partitions run it.
      [self](const WireAbortStep& abort) { self->state.rendezvous->Abort(abort.step_id, abort.status); },
      [self](WireHealthPing& ping) {
        ping.incarnation = self->state.incarnation;
        return ping;
      },
  };
}

}  // namespace

caf::actor SpawnDeviceActor(caf::actor_system& system, Device* device, uint64_t incarnation,
                            std::shared_ptr<RendezvousMgr> rendezvous, std::shared_ptr<TaskSteps> steps) {
  return system.spawn(DeviceBehavior, device, incarnation, std::move(rendezvous), std::move(steps));
}

}  // namespace tact
