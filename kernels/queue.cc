#include "kernels/queue.h"

#include <utility>

namespace tact {

Queue::Queue(QueueOptions options)
    : options_(std::move(options)), random_(options_.seed != 0 ? options_.seed : std::random_device{}()) {}

std::string Queue::DebugString() const {
  const char* kind =
      options_.shuffle ? "RandomShuffleQueue" : options_.padding ? "PaddingFIFOQueue" : "FIFOQueue";
  return std::string(kind) + " '" + options_.name + "'";
}

Status Queue::Check(const Tuple& tuple) const {
  const std::string& name = options_.name;
  if (tuple.size() != options_.types.size()) {
    return errors::InvalidArgument("queue '", name, "' takes ", options_.types.size(), " components, not ",
                                   tuple.size());
  }
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != options_.types[i]) {
      return errors::InvalidArgument("queue '", name, "': component ", i, " is ",
                                     DataTypeString(tuple[i].dtype()), ", not ",
                                     DataTypeString(options_.types[i]));
    }
    if (!options_.shapes.empty() && !options_.shapes[i].IsCompatibleWith(tuple[i].shape())) {
      return errors::InvalidArgument("queue '", name, "': component ", i, " has shape ",
                                     tuple[i].shape().DebugString(), ", not ",
                                     options_.shapes[i].DebugString());
    }
  }
  return Status::OK();
}

bool Queue::Full() const {
  return options_.capacity >= 0 && static_cast<int64_t>(items_.size()) >= options_.capacity;
}

Queue::Token Queue::TryEnqueueMany(std::vector<Tuple> elements, EnqueueDone done) {
  Calls calls;
  Token token = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      calls.push_back([done = std::move(done), name = options_.name] {
        done(errors::Cancelled("queue '", name, "' is closed"));
      });
    } else {
      token = next_token_++;
      enqueues_.emplace(token, PendingEnqueue{std::move(elements), 0, std::move(done)});
      Match(&calls);
      if (!enqueues_.count(token)) token = 0;
    }
  }
  for (auto& c : calls) c();
  return token;
}

Queue::Token Queue::TryEnqueue(Tuple tuple, EnqueueDone done) {
  std::vector<Tuple> one;
  one.push_back(std::move(tuple));
  return TryEnqueueMany(std::move(one), std::move(done));
}

Queue::Token Queue::TryDequeueMany(int64_t n, bool allow_fewer, DequeueManyDone done) {
  Calls calls;
  Token token = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    token = next_token_++;
    dequeues_.emplace(token, PendingDequeue{n, allow_fewer, std::move(done)});
    Match(&calls);
    if (!dequeues_.count(token)) token = 0;
  }
  for (auto& c : calls) c();
  return token;
}

Queue::Token Queue::TryDequeue(DequeueDone done) {
  return TryDequeueMany(1, false, [done = std::move(done)](const Status& s, std::vector<Tuple> got) {
    done(s, got.empty() ? Tuple() : std::move(got[0]));
  });
}

Queue::Tuple Queue::Take() {
  if (options_.shuffle && items_.size() > 1) {
    std::swap(items_[random_() % items_.size()], items_.back());
    Tuple t = std::move(items_.back());
    items_.pop_back();
    return t;
  }
  Tuple t = std::move(items_.front());
  items_.pop_front();
  return t;
}

std::vector<Queue::Tuple> Queue::TakeMany(int64_t n) {
  std::vector<Tuple> got;
  for (int64_t i = 0; i < n; ++i) got.push_back(Take());
  return got;
}

void Queue::Match(Calls* calls) {
  for (;;) {
    // The oldest enqueue's elements go in while there is room.
    if (!enqueues_.empty() && !Full()) {
      auto it = enqueues_.begin();
      PendingEnqueue& e = it->second;
      items_.push_back(std::move(e.elements[e.next++]));
      if (e.next == e.elements.size()) {
        calls->push_back([done = std::move(e.done)] { done(Status::OK()); });
        enqueues_.erase(it);
      }
      continue;
    }
    if (dequeues_.empty()) break;
    // The oldest dequeue, when it can have its elements.
    auto it = dequeues_.begin();
    PendingDequeue& d = it->second;
    const int64_t size = static_cast<int64_t>(items_.size());
    const int64_t keep = options_.shuffle && !closed_ ? options_.min_after_dequeue : 0;
    const bool drained = closed_ && enqueues_.empty();  // no element will come
    int64_t take = 0;
    if (size - keep >= d.n) {
      take = d.n;
    } else if (drained && d.allow_fewer && size > 0) {
      take = size;
    } else if (!drained) {
      break;  // it waits, and the ones after it too
    }
    if (take > 0) {
      calls->push_back([done = std::move(d.done), got = TakeMany(take)]() mutable {
        done(Status::OK(), std::move(got));
      });
    } else {
      calls->push_back([done = std::move(d.done), name = options_.name, n = d.n, size] {
        done(errors::OutOfRange("queue '", name, "' is closed and has ", size, " elements, fewer than the ",
                                n, " asked for"),
             {});
      });
    }
    dequeues_.erase(it);
  }
}

void Queue::Cancel(Token token, const Status& why) {
  std::function<void()> call;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto e = enqueues_.find(token); e != enqueues_.end()) {
      call = [done = std::move(e->second.done), why] { done(why); };
      enqueues_.erase(e);
    } else if (auto d = dequeues_.find(token); d != dequeues_.end()) {
      call = [done = std::move(d->second.done), why] { done(why, {}); };
      dequeues_.erase(d);
    }
  }
  if (call) call();
}

void Queue::Close(bool cancel_pending_enqueues) {
  Calls calls;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (auto& [token, e] : enqueues_) {
        calls.push_back([done = std::move(e.done), name = options_.name] {
          done(errors::Cancelled("queue '", name, "' was closed with this enqueue pending"));
        });
      }
      enqueues_.clear();
    }
    Match(&calls);
  }
  for (auto& c : calls) c();
}

int64_t Queue::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(items_.size());
}

bool Queue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

}  // namespace tact
