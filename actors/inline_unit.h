// Actors that run on the thread that sends to them.
//
// CAF runs an idle actor that gets a message on whichever execution unit
// the sender names (scheduled_actor::enqueue hands it to exec_later), and
// on its scheduler when the sender names none. TellInline names the
// calling thread's own unit, so an endpoint actor (actors/endpoints.h)
// that a Send kernel, a Recv kernel or a tensor link's reader talks to
// runs right there: the message costs a mailbox push and a resume, not a
// wake-up of another thread (50-150 us on a machine whose cores are busy,
// docs/performance.md). The same holds for a local step: Session::Run
// tells the master inline, so the master and the partitions it sends the
// step to run on the client's thread up to the step's first expensive
// kernel, and a partition tells its StepDone to the master inline on the
// thread that ended the step. An actor that is already running on another
// thread just finds the message in its mailbox, as with any send; the
// actor model's one-message-at-a-time guarantee is CAF's, unchanged.
//
// An actor run here may spawn (a device actor registering partitions);
// the outermost TellInline gives the thread back without the reference to
// CAF's logger that spawning leaves (actors/caf_thread_scope.h).
//
// Nested sends do not nest stacks: a message that an actor running here
// sends (CAF's send, or a TellInline from inside it) queues on this thread
// and runs after the current message, before the outermost TellInline
// returns. So a Send kernel that a Recv endpoint's answer ran hands its
// tensor on just after that answer. (Running it at once, nested, inside
// the executor's send batch, was tried: lossy 64 MiB transfers fell from
// 3.3 to 2.2 GB/s and the distributed mlp did not gain, docs/performance.md.)
// Nothing that runs inside an inline actor may block waiting for another
// inline actor of the same thread.
//
// Include only from actors/*.cc: it names CAF's types.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/mailbox_element.hpp>
#include <utility>

namespace tact {

// Puts a message holding `xs` into `dest`'s mailbox (from no sender) and,
// if `dest` was idle, runs it on this thread before returning.
template <class... Ts>
void TellInline(const caf::actor& dest, Ts&&... xs);

// While one lives on this thread, TellInline only queues: the actors it
// makes ready run when the outermost hold ends (or, inside a TellInline,
// when that one's actor returns). So a message can be in an actor's
// mailbox before the thread does something that makes other threads send
// to it, without the actor's run delaying that.
class InlineHold {
 public:
  InlineHold();
  ~InlineHold();
  InlineHold(const InlineHold&) = delete;
  InlineHold& operator=(const InlineHold&) = delete;
};

// Returns once every actor of `system` is done (await_all_actors_done) and
// no thread runs one of them inline. An actor that ends inline leaves its
// system's registry before it has finished cleaning up (CAF's
// local_actor::cleanup reads the system's clock after), and the system's
// destructor waits only for the registry: so whoever destroys a system
// whose actors may run inline calls this first.
void AwaitActorsDone(const caf::actor_system& system);

namespace inline_unit_internal {
void Tell(const caf::actor& dest, caf::mailbox_element_ptr element);
}  // namespace inline_unit_internal

template <class... Ts>
void TellInline(const caf::actor& dest, Ts&&... xs) {
  // The values go straight into the mailbox element: one allocation.
  inline_unit_internal::Tell(
      dest, caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, std::forward<Ts>(xs)...));
}

}  // namespace tact
