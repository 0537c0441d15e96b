// The partition actor (paper 3.2: each device's subgraph runs where it was
// placed). It owns its executor; each run_step message is one step.
#include "actors/messages.h"

namespace tact {
namespace {

struct PartitionState {
  std::shared_ptr<const Executor> executor;
  Device* device = nullptr;
  std::shared_ptr<const std::string> container;
  caf::actor master;
};

caf::behavior PartitionBehavior(caf::stateful_actor<PartitionState>* self,
                                std::shared_ptr<const Executor> executor, Device* device,
                                std::shared_ptr<const std::string> container, caf::actor master) {
  self->state.executor = std::move(executor);
  self->state.device = device;
  self->state.container = std::move(container);
  self->state.master = std::move(master);
  return {
      [self](run_step_atom, std::shared_ptr<StepRequest> req) {
        // This CAF thread starts the step but runs only its cheap kernels;
        // every expensive one goes to the device's threads. (Handing the
        // whole step to the device instead costs a thread wake-up, ~20 us
        // here, on every Run.)
        auto executor = self->state.executor;
        caf::actor master = self->state.master;
        Executor::Args args;
        args.step_id = req->step_id;
        args.rendezvous = req->rendezvous.get();
        args.stats = req->stats;
        args.default_container = self->state.container.get();
        args.caller_may_compute = false;
        // The callback holds what the step points into until it is over.
        executor->RunAsync(args, [master, req, executor, container = self->state.container](
                                     const Status& s) {
          caf::anon_send(master, step_done_atom::value, req->step_id, s);
        });
      },
  };
}

}  // namespace

caf::actor SpawnPartition(caf::event_based_actor* master, std::shared_ptr<const Executor> executor,
                          Device* device, std::shared_ptr<const std::string> container) {
  // Linked: the partition ends with its master.
  return master->spawn<caf::linked>(PartitionBehavior, std::move(executor), device,
                                    std::move(container), caf::actor_cast<caf::actor>(master));
}

}  // namespace tact
