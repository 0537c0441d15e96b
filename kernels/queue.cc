#include "kernels/queue.h"

namespace tact {

FIFOQueue::FIFOQueue(std::string name, std::vector<DataType> types, std::vector<PartialTensorShape> shapes,
                     int64_t capacity)
    : name_(std::move(name)), types_(std::move(types)), shapes_(std::move(shapes)), capacity_(capacity) {}

Status FIFOQueue::Check(const Tuple& tuple) const {
  if (tuple.size() != types_.size()) {
    return errors::InvalidArgument("queue '", name_, "' takes ", types_.size(), " components, not ",
                                   tuple.size());
  }
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != types_[i]) {
      return errors::InvalidArgument("queue '", name_, "': component ", i, " is ",
                                     DataTypeString(tuple[i].dtype()), ", not ", DataTypeString(types_[i]));
    }
    if (!shapes_.empty() && !shapes_[i].IsCompatibleWith(tuple[i].shape())) {
      return errors::InvalidArgument("queue '", name_, "': component ", i, " has shape ",
                                     tuple[i].shape().DebugString(), ", not ", shapes_[i].DebugString());
    }
  }
  return Status::OK();
}

Status FIFOQueue::ClosedAndEmpty() const {
  return errors::OutOfRange("queue '", name_, "' is closed and empty");
}

FIFOQueue::Token FIFOQueue::TryEnqueue(Tuple tuple, EnqueueDone done) {
  Calls calls;
  Token token = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      calls.push_back([done = std::move(done), name = name_] {
        done(errors::Cancelled("queue '", name, "' is closed"));
      });
    } else {
      token = next_token_++;
      enqueues_.emplace(token, PendingEnqueue{std::move(tuple), std::move(done)});
      Match(&calls);
      if (!enqueues_.count(token)) token = 0;
    }
  }
  for (auto& c : calls) c();
  return token;
}

FIFOQueue::Token FIFOQueue::TryDequeue(DequeueDone done) {
  Calls calls;
  Token token = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    token = next_token_++;
    dequeues_.emplace(token, std::move(done));
    Match(&calls);
    if (!dequeues_.count(token)) token = 0;
  }
  for (auto& c : calls) c();
  return token;
}

void FIFOQueue::Match(Calls* calls) {
  for (;;) {
    if (!enqueues_.empty() && !Full()) {
      auto it = enqueues_.begin();
      items_.push_back(std::move(it->second.tuple));
      calls->push_back([done = std::move(it->second.done)] { done(Status::OK()); });
      enqueues_.erase(it);
      continue;
    }
    if (!dequeues_.empty() && !items_.empty()) {
      auto it = dequeues_.begin();
      calls->push_back([done = std::move(it->second), tuple = std::move(items_.front())]() mutable {
        done(Status::OK(), std::move(tuple));
      });
      items_.pop_front();
      dequeues_.erase(it);
      continue;
    }
    break;
  }
  // Closed and drained: no element will come for the waiting dequeues.
  if (closed_ && items_.empty() && enqueues_.empty()) {
    for (auto& [token, done] : dequeues_) {
      calls->push_back([done = std::move(done), why = ClosedAndEmpty()] { done(why, {}); });
    }
    dequeues_.clear();
  }
}

void FIFOQueue::Cancel(Token token, const Status& why) {
  std::function<void()> call;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto e = enqueues_.find(token); e != enqueues_.end()) {
      call = [done = std::move(e->second.done), why] { done(why); };
      enqueues_.erase(e);
    } else if (auto d = dequeues_.find(token); d != dequeues_.end()) {
      call = [done = std::move(d->second), why] { done(why, {}); };
      dequeues_.erase(d);
    }
  }
  if (call) call();
}

void FIFOQueue::Close(bool cancel_pending_enqueues) {
  Calls calls;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (auto& [token, e] : enqueues_) {
        calls.push_back([done = std::move(e.done), name = name_] {
          done(errors::Cancelled("queue '", name, "' was closed with this enqueue pending"));
        });
      }
      enqueues_.clear();
    }
    Match(&calls);
  }
  for (auto& c : calls) c();
}

int64_t FIFOQueue::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(items_.size());
}

bool FIFOQueue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

}  // namespace tact
