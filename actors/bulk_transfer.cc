#include "actors/bulk_transfer.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <thread>

#include "actors/tensor_link.h"

namespace tact {

bool TravelsByLink(const Tensor& t) {
  return t.IsInitialized() && TensorLinks::Carries(t.dtype()) && t.TotalBytes() >= kBulkTensorBytes;
}

// ';' separates a rendezvous key's fields; no node or attr name has one.
std::string LinkedAttrKey(const std::string& node, const std::string& attr) {
  return "attr;" + node + ";" + attr;
}

std::vector<std::pair<std::string, Tensor>> TakeLinkedAttrs(GraphDef* graph) {
  std::vector<std::pair<std::string, Tensor>> taken;
  for (NodeDef& n : graph->nodes) {
    for (auto& [name, value] : n.attrs) {
      if (value.kind() != AttrValue::Kind::kTensor || !TravelsByLink(value.tensor())) continue;
      taken.emplace_back(LinkedAttrKey(n.name, name), value.tensor());
      Tensor placeholder(value.tensor().dtype(), TensorShape({}));
      std::memset(placeholder.raw_data(), 0, placeholder.TotalBytes());
      value = AttrValue::FromTensor(std::move(placeholder));
    }
  }
  return taken;
}

Status PutLinkedAttr(GraphDef* graph, const std::string& key, const Tensor& value) {
  for (NodeDef& n : graph->nodes) {
    for (auto& [name, attr] : n.attrs) {
      if (LinkedAttrKey(n.name, name) != key) continue;
      if (attr.kind() != AttrValue::Kind::kTensor || attr.tensor().dtype() != value.dtype()) {
        return errors::InvalidArgument("linked attr '", key, "' arrived as ",
                                       DataTypeString(value.dtype()),
                                       ", which its placeholder in the graph is not");
      }
      attr = AttrValue::FromTensor(value);
      return Status::OK();
    }
  }
  return errors::InvalidArgument("linked attr '", key, "' names no tensor attr of the graph");
}

// One task's queue and the thread that empties it.
struct BulkSender::Lane {
  struct Job {
    std::string host;
    uint16_t port = 0;
    uint64_t epoch = 0;
    int64_t step_id = 0;
    std::string key;
    Tensor tensor;
    OnError on_error;
  };

  std::mutex mu;
  std::condition_variable cv;
  std::deque<Job> jobs;
  bool stop = false;
  std::thread thread;

  void Loop(const std::string& task, TensorLinks* links) {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return stop || !jobs.empty(); });
      if (stop) return;
      Job job = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      Status s = links->Send(task, job.host, job.port, job.epoch, job.step_id, job.key, job.tensor);
      if (!s.ok()) job.on_error(s);
      job = Job();  // the tensor's reference goes here, off the lock
      lock.lock();
    }
  }
};

BulkSender::BulkSender(const std::string& client, const std::string& key)
    : links_(TensorLinks::SendOnly(client, key)) {}

BulkSender::~BulkSender() {
  std::map<std::string, std::unique_ptr<Lane>> lanes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lanes.swap(lanes_);
  }
  for (auto& [task, lane] : lanes) {
    {
      std::lock_guard<std::mutex> lock(lane->mu);
      lane->stop = true;
      lane->cv.notify_all();
    }
    lane->thread.join();
  }
}

void BulkSender::Send(const std::string& task, const std::string& host, uint16_t port, uint64_t epoch, int64_t step_id,
                      const std::string& key, const Tensor& tensor, OnError on_error) {
  Lane* lane;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Lane>& slot = lanes_[task];
    if (slot == nullptr) {
      slot = std::make_unique<Lane>();
      slot->thread = std::thread([l = slot.get(), task, links = links_.get()] { l->Loop(task, links); });
    }
    lane = slot.get();
  }
  std::lock_guard<std::mutex> lock(lane->mu);
  lane->jobs.push_back(Lane::Job{host, port, epoch, step_id, key, tensor, std::move(on_error)});
  lane->cv.notify_one();
}

}  // namespace tact
