// The partition actor: runs its partition's steps that come as CAF
// messages (actors/partition.h holds the partition itself).
#include "actors/inline_unit.h"
#include "actors/messages.h"
#include "actors/partition.h"

namespace tact {
namespace {

caf::behavior PartitionBehavior(caf::event_based_actor* self, std::shared_ptr<Partition> partition) {
  return {
      [self, partition](WireRunStep& step) {
        caf::actor master = caf::actor_cast<caf::actor>(self->current_sender());
        // On the thread that ends the step, while the master is idle.
        partition->Run(step, [master](WireStepDone done) { TellInline(master, std::move(done)); });
      },
      [partition](const WireAbortStep& abort) { partition->Abort(abort); },
  };
}

}  // namespace

caf::actor SpawnPartition(caf::event_based_actor* device_actor, std::shared_ptr<Partition> partition) {
  // Linked: the partition ends with its device actor.
  return device_actor->spawn<caf::linked>(PartitionBehavior, std::move(partition));
}

}  // namespace tact
