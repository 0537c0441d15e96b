// The answer to a client's call, given once (actors/messages.h: RunCall,
// ExtendCall). If the call is destroyed unanswered (the master that held
// it ended without answering, say on a bug), it answers Internal then, so
// that no client waits for ever.
#pragma once

#include <functional>
#include <utility>

#include "graph/status.h"

namespace tact {

template <typename T>  // Status or a StatusOr
class OnceReply {
 public:
  OnceReply() = default;
  OnceReply& operator=(std::function<void(T)> reply) {
    reply_ = std::move(reply);
    return *this;
  }
  OnceReply(const OnceReply&) = delete;
  OnceReply& operator=(const OnceReply&) = delete;
  ~OnceReply() {
    if (reply_) reply_(T(errors::Internal("the session's master ended without answering this call")));
  }

  // Later calls are ignored.
  void operator()(T value) {
    if (auto reply = std::exchange(reply_, nullptr)) reply(std::move(value));
  }

 private:
  std::function<void(T)> reply_;
};

}  // namespace tact
