#include "actors/wire.h"

#include <capnp/message.h>
#include <kj/exception.h>

#include "actors/wire_counts.h"
#include "graph/graph_def_proto.h"
#include "graph/tensor_codec.h"
#include "schemas/runtime.capnp.h"

namespace tact {
namespace {

// Builds a message of root type R with `fill`; capnp's own limits become
// InvalidArgument rather than an exception.
template <typename R, typename Fill>
StatusOr<std::string> Build(const char* what, Fill&& fill) {
  try {
    capnp::MallocMessageBuilder message;
    TACT_RETURN_IF_ERROR(fill(message.initRoot<R>()));
    return MessageToBytes(message);
  } catch (const kj::Exception& e) {
    return errors::InvalidArgument(what, " cannot be serialised: ", e.getDescription().cStr());
  }
}

template <typename R, typename Read>
Status Parse(std::string_view bytes, const char* what, Read&& read) {
  Status s = ReadCapnpMessage(bytes, what, [&](capnp::MessageReader& r) -> Status {
    Status s = read(r.getRoot<R>(), bytes.size() / 8);
    return s.WithPrefix(s.ok() ? "" : std::string(what) + ": ");
  });
  CountDecode(what, s.ok());
  return s;
}

void StatusToProto(const Status& s, schema::StatusProto::Builder out) {
  out.setCode(static_cast<int32_t>(s.code()));
  out.setMessage(s.message());
}

// The carried status into *out; the return value is whether it decoded
// (a StatusOr<Status> would blur the two).
Status StatusFromProto(schema::StatusProto::Reader in, Status* out) {
  const int32_t code = in.getCode();
  if (code < 0 || code > static_cast<int32_t>(Code::kUnauthenticated)) {
    return errors::InvalidArgument("unknown status code ", code);
  }
  *out = Status(static_cast<Code>(code), in.getMessage());
  return Status::OK();
}

Status TensorsToProto(const NamedTensors& ts, capnp::List<schema::NamedTensor>::Builder out) {
  for (size_t i = 0; i < ts.size(); ++i) {
    out[i].setName(ts[i].first);
    Status s = TensorToProto(ts[i].second, out[i].initTensor());
    if (!s.ok()) return s.WithPrefix("tensor '" + ts[i].first + "': ");
  }
  return Status::OK();
}

void NamesToProto(const std::vector<std::string>& names, capnp::List<capnp::Text>::Builder out) {
  for (size_t i = 0; i < names.size(); ++i) out.set(static_cast<unsigned>(i), names[i]);
}

kj::ArrayPtr<const kj::byte> BytesOf(const std::string& s) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}

std::string StringOf(capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); }

std::vector<std::string> NamesFromProto(capnp::List<capnp::Text>::Reader in) {
  std::vector<std::string> out;
  for (auto name : in) out.emplace_back(name);
  return out;
}

StatusOr<NamedTensors> TensorsFromProto(capnp::List<schema::NamedTensor>::Reader in) {
  NamedTensors out;
  for (uint32_t i = 0; i < in.size(); ++i) {
    const std::string name = in[i].getName();
    StatusOr<Tensor> t = TensorFromProto(in[i].getTensor());
    if (!t.ok()) return t.status().WithPrefix("tensor '" + name + "': ");
    out.emplace_back(name, std::move(t).value());
  }
  return out;
}

}  // namespace

StatusOr<std::string> Encode(const WireRegisterPartition& m) {
  return Build<schema::RegisterPartition>("RegisterPartition", [&](auto out) {
    out.setHandle(m.handle);
    out.setDevice(m.device);
    out.setIncarnation(m.incarnation);
    out.setContainer(m.container);
    out.setPartitionsInTask(m.partitions_in_task);
    NamesToProto(m.feeds, out.initFeeds(static_cast<unsigned>(m.feeds.size())));
    NamesToProto(m.fetches, out.initFetches(static_cast<unsigned>(m.fetches.size())));
    out.setLinkedStep(m.linked_step);
    NamesToProto(m.linked_attrs, out.initLinkedAttrs(static_cast<unsigned>(m.linked_attrs.size())));
    return GraphDefToProto(m.graph, out.initGraph());
  });
}

Status Decode(std::string_view bytes, WireRegisterPartition* m) {
  return Parse<schema::RegisterPartition>(bytes, "RegisterPartition", [&](auto in, size_t words) {
    m->handle = in.getHandle();
    m->device = in.getDevice();
    m->incarnation = in.getIncarnation();
    m->container = in.getContainer();
    m->partitions_in_task = in.getPartitionsInTask();
    if (m->partitions_in_task == 0) return errors::InvalidArgument("partitionsInTask is 0");
    m->feeds = NamesFromProto(in.getFeeds());
    m->fetches = NamesFromProto(in.getFetches());
    m->linked_step = in.getLinkedStep();
    m->linked_attrs = NamesFromProto(in.getLinkedAttrs());
    TACT_ASSIGN_OR_RETURN(m->graph, GraphDefFromProto(in.getGraph(), words));
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireRunStep& m) {
  return Build<schema::RunStep>("RunStep", [&](auto out) {
    out.setStepId(m.step_id);
    out.setHandle(m.handle);
    out.setCollectStats(m.collect_stats);
    NamesToProto(m.linked_feeds, out.initLinkedFeeds(static_cast<unsigned>(m.linked_feeds.size())));
    out.setReplyPort(m.reply_port);
    out.setReplyEpoch(m.reply_epoch);
    out.setAfterStep(m.after_step);
    return TensorsToProto(m.feeds, out.initFeeds(static_cast<unsigned>(m.feeds.size())));
  });
}

Status Decode(std::string_view bytes, WireRunStep* m) {
  return Parse<schema::RunStep>(bytes, "RunStep", [&](auto in, size_t) {
    m->step_id = in.getStepId();
    m->handle = in.getHandle();
    m->collect_stats = in.getCollectStats();
    m->linked_feeds = NamesFromProto(in.getLinkedFeeds());
    m->reply_port = in.getReplyPort();
    m->reply_epoch = in.getReplyEpoch();
    m->after_step = in.getAfterStep();
    TACT_ASSIGN_OR_RETURN(m->feeds, TensorsFromProto(in.getFeeds()));
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireStepDone& m) {
  return Build<schema::StepDone>("StepDone", [&](auto out) {
    out.setStepId(m.step_id);
    out.setHandle(m.handle);
    StatusToProto(m.status, out.initStatus());
    auto stats = out.initStats(static_cast<unsigned>(m.stats.size()));
    for (size_t i = 0; i < m.stats.size(); ++i) {
      stats[i].setNode(m.stats[i].node_name);
      stats[i].setDevice(m.stats[i].device);
      const std::vector<int64_t>& bytes = m.stats[i].output_bytes;
      auto out_bytes = stats[i].initOutputBytes(static_cast<unsigned>(bytes.size()));
      for (size_t b = 0; b < bytes.size(); ++b) out_bytes.set(static_cast<unsigned>(b), bytes[b]);
      stats[i].setStartNs(m.stats[i].start_ns);
      stats[i].setEndNs(m.stats[i].end_ns);
    }
    NamesToProto(m.linked_fetches, out.initLinkedFetches(static_cast<unsigned>(m.linked_fetches.size())));
    return TensorsToProto(m.fetched, out.initFetched(static_cast<unsigned>(m.fetched.size())));
  });
}

Status Decode(std::string_view bytes, WireStepDone* m) {
  return Parse<schema::StepDone>(bytes, "StepDone", [&](auto in, size_t) {
    m->step_id = in.getStepId();
    m->handle = in.getHandle();
    TACT_RETURN_IF_ERROR(StatusFromProto(in.getStatus(), &m->status));
    m->stats.clear();
    for (auto s : in.getStats()) {
      NodeExecStats n;
      n.node_name = s.getNode();
      n.device = s.getDevice();
      for (int64_t b : s.getOutputBytes()) n.output_bytes.push_back(b);
      n.start_ns = s.getStartNs();
      n.end_ns = s.getEndNs();
      m->stats.push_back(std::move(n));
    }
    m->linked_fetches = NamesFromProto(in.getLinkedFetches());
    TACT_ASSIGN_OR_RETURN(m->fetched, TensorsFromProto(in.getFetched()));
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireRendezvousTensor& m) {
  return Build<schema::RendezvousTensor>("RendezvousTensor", [&](auto out) {
    out.setStepId(m.step_id);
    out.setKey(m.key);
    if (!m.tensor.IsInitialized()) {
      out.setDead(true);
      return Status::OK();
    }
    return TensorToProto(m.tensor, out.initTensor());
  });
}

Status Decode(std::string_view bytes, WireRendezvousTensor* m) {
  return Parse<schema::RendezvousTensor>(bytes, "RendezvousTensor", [&](auto in, size_t) {
    m->step_id = in.getStepId();
    m->key = in.getKey();
    if (in.getDead()) {
      if (in.hasTensor()) return errors::InvalidArgument("tensor '", m->key, "' is dead and has a value");
      m->tensor = Tensor();
      return Status::OK();
    }
    TACT_ASSIGN_OR_RETURN(m->tensor, TensorFromProto(in.getTensor()));
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WirePartitionRegistered& m) {
  return Build<schema::PartitionRegistered>("PartitionRegistered", [&](auto out) {
    out.setHandle(m.handle);
    out.setDevice(m.device);
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WirePartitionRegistered* m) {
  return Parse<schema::PartitionRegistered>(bytes, "PartitionRegistered", [&](auto in, size_t) {
    m->handle = in.getHandle();
    m->device = in.getDevice();
    m->local_partition.reset();
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireDeregisterPartition& m) {
  return Build<schema::DeregisterPartition>("DeregisterPartition", [&](auto out) {
    out.setHandle(m.handle);
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireDeregisterPartition* m) {
  return Parse<schema::DeregisterPartition>(bytes, "DeregisterPartition", [&](auto in, size_t) {
    m->handle = in.getHandle();
    if (m->handle.empty()) return errors::InvalidArgument("a DeregisterPartition must name a partition");
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireFailure& m) {
  return Build<schema::Failure>("Failure", [&](auto out) {
    StatusToProto(m.status, out.initStatus());
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireFailure* m) {
  return Parse<schema::Failure>(bytes, "Failure", [&](auto in, size_t) {
    TACT_RETURN_IF_ERROR(StatusFromProto(in.getStatus(), &m->status));
    if (m->status.ok()) return errors::InvalidArgument("a Failure must carry an error, not OK");
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireAbortStep& m) {
  return Build<schema::AbortStep>("AbortStep", [&](auto out) {
    out.setStepId(m.step_id);
    StatusToProto(m.status, out.initStatus());
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireAbortStep* m) {
  return Parse<schema::AbortStep>(bytes, "AbortStep", [&](auto in, size_t) {
    m->step_id = in.getStepId();
    TACT_RETURN_IF_ERROR(StatusFromProto(in.getStatus(), &m->status));
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireHealthPing& m) {
  return Build<schema::HealthPing>("HealthPing", [&](auto out) {
    out.setSequence(m.sequence);
    out.setSentMicros(m.sent_micros);
    out.setIncarnation(m.incarnation);
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireHealthPing* m) {
  return Parse<schema::HealthPing>(bytes, "HealthPing", [&](auto in, size_t) {
    m->sequence = in.getSequence();
    m->sent_micros = in.getSentMicros();
    m->incarnation = in.getIncarnation();
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireTaskInfo& m) {
  return Build<schema::TaskInfo>("TaskInfo", [&](auto out) {
    out.setTask(m.task);
    out.setIncarnation(m.incarnation);
    NamesToProto(m.devices, out.initDevices(static_cast<unsigned>(m.devices.size())));
    out.setLinkPort(m.link_port);
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireTaskInfo* m) {
  return Parse<schema::TaskInfo>(bytes, "TaskInfo", [&](auto in, size_t) {
    m->task = in.getTask();
    m->incarnation = in.getIncarnation();
    m->devices = NamesFromProto(in.getDevices());
    m->link_port = in.getLinkPort();
    return Status::OK();
  });
}


StatusOr<std::string> Encode(const WireDescribe& m) {
  return Build<schema::Describe>("Describe", [&](auto out) {
    out.setPayload(BytesOf(m.payload));
    out.setProof(BytesOf(m.proof));
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireDescribe* m) {
  return Parse<schema::Describe>(bytes, "Describe", [&](auto in, size_t) {
    m->payload = StringOf(in.getPayload());
    m->proof = StringOf(in.getProof());
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireIntroduce& m) {
  return Build<schema::Introduce>("Introduce", [&](auto out) {
    NamesToProto(m.forget, out.initForget(static_cast<unsigned>(m.forget.size())));
    auto current = out.initCurrent(static_cast<unsigned>(m.current.size()));
    unsigned i = 0;
    for (const auto& [task, incarnation] : m.current) {
      current[i].setTask(task);
      current[i++].setIncarnation(incarnation);
    }
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireIntroduce* m) {
  return Parse<schema::Introduce>(bytes, "Introduce", [&](auto in, size_t) {
    m->forget = NamesFromProto(in.getForget());
    for (auto c : in.getCurrent()) {
      if (!m->current.emplace(c.getTask(), c.getIncarnation()).second) {
        return errors::InvalidArgument("task '", std::string(c.getTask()), "' twice in 'current'");
      }
    }
    return Status::OK();
  });
}

StatusOr<std::string> Encode(const WireIntroduced&) {
  return Build<schema::Introduced>("Introduced", [](auto) { return Status::OK(); });
}

Status Decode(std::string_view bytes, WireIntroduced*) {
  return Parse<schema::Introduced>(bytes, "Introduced", [](auto, size_t) { return Status::OK(); });
}

StatusOr<std::string> Encode(const WireHello& m) {
  return Build<schema::Hello>("Hello", [&](auto out) {
    out.setTask(m.task);
    out.setLinkPort(m.link_port);
    out.setPayload(BytesOf(m.payload));
    out.setProof(BytesOf(m.proof));
    return Status::OK();
  });
}

Status Decode(std::string_view bytes, WireHello* m) {
  return Parse<schema::Hello>(bytes, "Hello", [&](auto in, size_t) {
    m->task = in.getTask();
    m->link_port = in.getLinkPort();
    m->payload = StringOf(in.getPayload());
    m->proof = StringOf(in.getProof());
    return Status::OK();
  });
}

}  // namespace tact
