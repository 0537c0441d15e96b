// The messages between the runtime's actors inside one process. They carry
// refcounted objects, so in-process delivery never copies tensor bytes.
// (Their wire forms, for the distributed runtime, come with schemas/
// runtime.capnp.)
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/executor.h"
#include "graph/graph_def.h"
#include "kernels/rendezvous.h"

namespace tact {

using extend_atom = caf::atom_constant<caf::atom("extend")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using run_step_atom = caf::atom_constant<caf::atom("runstep")>;
using step_done_atom = caf::atom_constant<caf::atom("stepdone")>;
using close_atom = caf::atom_constant<caf::atom("close")>;

// A client's Run, answered through `reply` (called exactly once, from any
// thread), so that no CAF thread blocks and the client waits on its own
// latch rather than a scoped_actor round trip.
struct RunCall {
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  StepStats* stats = nullptr;
  std::function<void(StatusOr<std::vector<Tensor>>)> reply;
};

struct ExtendCall {
  GraphDef graph;
  std::function<void(Status)> reply;
};

// One step of one partition.
struct StepRequest {
  int64_t step_id = 0;
  std::shared_ptr<Rendezvous> rendezvous;
  StepStats* stats = nullptr;
};

}  // namespace tact

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::RunCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::ExtendCall>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<tact::StepRequest>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tact::Status)

namespace tact {

// A partition actor: runs `executor` on `device` once per run_step, off the
// CAF threads, and tells `master` with step_done(step_id, Status).
caf::actor SpawnPartition(caf::event_based_actor* master, std::shared_ptr<const Executor> executor,
                          Device* device, std::shared_ptr<const std::string> container);

// The master actor of a local session: keeps the graph, prunes and
// registers one partition per (feeds, fetches, targets) signature, and runs
// steps (extend_atom + ExtendCall, run_atom + RunCall).
caf::actor SpawnMaster(caf::actor_system& system, Device* device, std::string container);

}  // namespace tact
