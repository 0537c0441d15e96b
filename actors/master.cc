// The master actor of a local session (paper 3): it owns the client's
// graph, and per distinct (feeds, fetches, targets) it prunes the graph
// (graph/subgraph.h), builds the executor and registers a partition actor,
// once; each Run is then one run_step to the partition and one step_done
// back. Nothing here computes or waits.
#include <algorithm>
#include <map>

#include "actors/messages.h"
#include "graph/subgraph.h"
#include "kernels/resource_mgr.h"

namespace tact {
namespace {

struct Signature {
  caf::actor partition;
  std::vector<std::pair<std::string, DataType>> feed_types;  // feed name -> expected dtype
};

struct PendingStep {
  std::shared_ptr<RunCall> call;
  std::shared_ptr<Rendezvous> rendezvous;
};

struct MasterState {
  Device* device = nullptr;
  std::shared_ptr<const std::string> container;
  GraphDef graph_def;
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::map<std::string, Signature> signatures;
  std::map<int64_t, PendingStep> pending;
  int64_t next_step = 1;
};

using Self = caf::stateful_actor<MasterState>;

std::string SignatureKey(const RunCall& call) {
  std::vector<std::string> feeds;
  for (const auto& [name, t] : call.feeds) feeds.push_back(name);
  std::sort(feeds.begin(), feeds.end());
  std::vector<std::string> targets = call.targets;
  std::sort(targets.begin(), targets.end());
  std::string key;
  for (const auto& f : feeds) key += f + ",";
  key += "|";
  for (const auto& f : call.fetches) key += f + ",";  // order matters: it is the result's order
  key += "|";
  for (const auto& t : targets) key += t + ",";
  return key;
}

// The registered partition for this call's signature, built on first use.
StatusOr<const Signature*> FindOrRegister(Self* self, const RunCall& call) {
  MasterState& st = self->state;
  const std::string key = SignatureKey(call);
  auto it = st.signatures.find(key);
  if (it != st.signatures.end()) return &it->second;
  SubgraphSpec spec;
  for (const auto& [name, t] : call.feeds) spec.feeds.push_back(name);
  spec.fetches = call.fetches;
  spec.targets = call.targets;
  spec.device = st.device->name();
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> sub, BuildSubgraph(*st.graph, spec));
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Executor> ex,
                        Executor::Create(std::shared_ptr<const Graph>(std::move(sub)), st.device));
  Signature sig;
  sig.partition = SpawnPartition(self, std::shared_ptr<const Executor>(std::move(ex)), st.device,
                                 st.container);
  for (const auto& [name, t] : call.feeds) {
    TensorId id = *ParseTensorId(name);  // BuildSubgraph checked it
    sig.feed_types.emplace_back(name, BaseType(st.graph->FindNode(id.node)->output_type(id.port)));
  }
  return &st.signatures.emplace(key, std::move(sig)).first->second;
}

// Feeds of the wrong dtype, or of a shape their Placeholder rules out.
Status CheckFeeds(const MasterState& st, const RunCall& call, const Signature& sig) {
  for (size_t i = 0; i < call.feeds.size(); ++i) {
    const auto& [name, t] = call.feeds[i];
    DataType want = DT_INVALID;
    for (const auto& [n, type] : sig.feed_types) {
      if (n == name) want = type;
    }
    if (t.dtype() != want) {
      return errors::InvalidArgument("feed '", name, "' is ", DataTypeString(t.dtype()),
                                     " but the graph expects ", DataTypeString(want));
    }
    Node* node = st.graph->FindNode(ParseTensorId(name)->node);
    PartialTensorShape declared;
    if (node->op() == "Placeholder" && GetAttr(node->attrs(), "shape", &declared).ok() &&
        !declared.IsCompatibleWith(t.shape())) {
      return errors::InvalidArgument("feed '", name, "' has shape ", t.shape().DebugString(),
                                     " but placeholder '", node->name(), "' has shape ",
                                     declared.DebugString());
    }
  }
  return Status::OK();
}

void StartStep(Self* self, std::shared_ptr<RunCall> call) {
  MasterState& st = self->state;
  StatusOr<const Signature*> sig = FindOrRegister(self, *call);
  Status s = sig.ok() ? CheckFeeds(st, *call, **sig) : sig.status();
  if (!s.ok()) {
    call->reply(s);
    return;
  }
  auto rendezvous = NewLocalRendezvous();
  for (const auto& [name, t] : call->feeds) {
    s = rendezvous->Send(FeedKey(st.device->name(), ParseTensorId(name)->ToString()), t);
    if (!s.ok()) {
      call->reply(s);
      return;
    }
  }
  auto req = std::make_shared<StepRequest>();
  req->step_id = st.next_step++;
  req->rendezvous = rendezvous;
  req->stats = call->stats;
  st.pending[req->step_id] = PendingStep{std::move(call), rendezvous};
  self->send((*sig)->partition, run_step_atom::value, std::move(req));
}

void FinishStep(Self* self, int64_t step_id, const Status& status) {
  MasterState& st = self->state;
  auto it = st.pending.find(step_id);
  if (it == st.pending.end()) return;  // a step delivered twice is finished once
  PendingStep step = std::move(it->second);
  st.pending.erase(it);
  if (!status.ok()) {
    step.call->reply(status);
    return;
  }
  std::vector<Tensor> fetched;
  for (const std::string& f : step.call->fetches) {
    // The step is done, so every _Send has run: Recv returns at once.
    StatusOr<Tensor> t = step.rendezvous->Recv(FetchKey(st.device->name(), ParseTensorId(f)->ToString()));
    if (!t.ok()) {
      step.call->reply(t.status());
      return;
    }
    fetched.push_back(std::move(t).value());
  }
  step.call->reply(std::move(fetched));
}

Status Extend(MasterState& st, const GraphDef& add) {
  GraphDef combined = st.graph_def;
  combined.nodes.insert(combined.nodes.end(), add.nodes.begin(), add.nodes.end());
  TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(combined));
  st.graph_def = std::move(combined);
  st.graph = std::move(g);
  // Registered partitions stay valid: new nodes cannot become inputs of
  // old ones, so no existing closure changes.
  return Status::OK();
}

caf::behavior MasterBehavior(Self* self, Device* device, std::string container) {
  self->state.device = device;
  self->state.container = std::make_shared<const std::string>(std::move(container));
  return {
      [self](extend_atom, std::shared_ptr<ExtendCall> call) {
        call->reply(Extend(self->state, call->graph));
      },
      [self](run_atom, std::shared_ptr<RunCall> call) { StartStep(self, std::move(call)); },
      [self](step_done_atom, int64_t step_id, Status status) {
        FinishStep(self, step_id, status);
      },
  };
}

}  // namespace

caf::actor SpawnMaster(caf::actor_system& system, Device* device, std::string container) {
  return system.spawn(MasterBehavior, device, std::move(container));
}

}  // namespace tact
