// The answer to a client's call, given once (actors/messages.h: RunCall,
// ExtendCall). If the call is destroyed unanswered (the master that held
// it ended without answering, say on a bug), it answers Unavailable then,
// so that no client waits for ever; the session's supervisor starts a new
// master, so the call may be tried again (actors/supervisor.h). Two
// threads may answer at once (a Run's answer races from a tensor link's
// reader and from the master, actors/master_links.h): the first wins, the
// other is ignored.
#pragma once

#include <atomic>
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
    if (reply_ && !answered_.load()) {
      reply_(T(errors::Unavailable("the session's master ended without answering this call")));
    }
  }

  // Later calls are ignored. Set the reply before any thread may answer.
  void operator()(T value) {
    if (!reply_ || answered_.exchange(true)) return;
    reply_(std::move(value));
  }

 private:
  std::function<void(T)> reply_;
  std::atomic<bool> answered_{false};
};

}  // namespace tact
