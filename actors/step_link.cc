#include "actors/step_link.h"

#include <cstring>

#include "actors/bulk_transfer.h"

namespace tact {
namespace {

constexpr char kFetchPrefix[] = "msg;fetch;";

template <typename M>
StatusOr<Tensor> ToTensor(const M& m) {
  TACT_ASSIGN_OR_RETURN(std::string bytes, Encode(m));
  TACT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(CpuAllocator(), DT_UINT8,
                                                   TensorShape({static_cast<int64_t>(bytes.size())})));
  std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

template <typename M>
Status FromTensor(const Tensor& t, M* m) {
  if (t.dtype() != DT_UINT8 || t.dims() != 1) {
    return errors::DataLoss("a step message on a tensor link is ", DataTypeString(t.dtype()),
                            " of rank ", t.dims(), ", not a uint8 vector");
  }
  return Decode(std::string_view(static_cast<const char*>(t.raw_data()), t.TotalBytes()), m);
}

}  // namespace

bool IsStepMessage(const std::string& key) { return key.rfind("msg;", 0) == 0; }

// ';' separates the fields; no handle has one.
std::string LinkedFetchKey(const std::string& handle, const std::string& fetch) {
  return kFetchPrefix + handle + ";" + fetch;
}

StatusOr<Tensor> MessageTensor(const WireRunStep& m) { return ToTensor(m); }
StatusOr<Tensor> MessageTensor(const WireAbortStep& m) { return ToTensor(m); }
StatusOr<Tensor> MessageTensor(const WireStepDone& m) { return ToTensor(m); }
Status DecodeMessage(const Tensor& t, WireRunStep* m) { return FromTensor(t, m); }
Status DecodeMessage(const Tensor& t, WireAbortStep* m) { return FromTensor(t, m); }
Status DecodeMessage(const Tensor& t, WireStepDone* m) { return FromTensor(t, m); }

Status SendStepDone(TensorLinks* links, const LinkSender& to, uint16_t port, uint64_t epoch,
                    WireStepDone done) {
  NamedTensors inline_fetches;
  for (auto& [name, t] : done.fetched) {
    if (!TravelsByLink(t)) {
      inline_fetches.emplace_back(std::move(name), std::move(t));
      continue;
    }
    TACT_RETURN_IF_ERROR(
        links->Send(to.task, to.host, port, epoch, done.step_id, LinkedFetchKey(done.handle, name), t));
    done.linked_fetches.push_back(name);
  }
  done.fetched = std::move(inline_fetches);
  StatusOr<Tensor> message = MessageTensor(done);
  if (!message.ok()) {
    WireStepDone failed{done.step_id, done.handle, message.status().WithPrefix("StepDone: "), {}, {}, {}};
    message = MessageTensor(failed);
    if (!message.ok()) return message.status();
  }
  return links->Send(to.task, to.host, port, epoch, done.step_id, kStepDoneKey, *message);
}

StatusOr<std::optional<WireStepDone>> StepDoneAssembler::Take(const LinkSender& from, int64_t step_id,
                                                              const std::string& key, const Tensor& t) {
  if (key.rfind(kFetchPrefix, 0) == 0) {
    std::lock_guard<std::mutex> lock(mu_);
    FetchId id{from.task, step_id, key};
    fetches_[id] = t;
    order_.push_back(std::move(id));
    while (order_.size() > kMaxWaitingFetches) {
      fetches_.erase(order_.front());
      order_.pop_front();
    }
    return std::optional<WireStepDone>();
  }
  if (key != kStepDoneKey) {
    return errors::InvalidArgument("task ", from.task, " sent '", key, "' on a tensor link to the master");
  }
  WireStepDone done;
  Status s = DecodeMessage(t, &done);
  if (!s.ok()) return s.WithPrefix("a StepDone from task " + from.task + ": ");
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& name : done.linked_fetches) {
    auto it = fetches_.find(FetchId{from.task, done.step_id, LinkedFetchKey(done.handle, name)});
    if (it == fetches_.end()) {
      if (done.status.ok()) {
        done.status = errors::DataLoss("fetch '", name, "' of step ", done.step_id, " from task ",
                                       from.task, " did not arrive before its StepDone");
      }
      continue;
    }
    done.fetched.emplace_back(name, std::move(it->second));
    fetches_.erase(it);
  }
  done.linked_fetches.clear();
  return std::optional<WireStepDone>(std::move(done));
}

}  // namespace tact
