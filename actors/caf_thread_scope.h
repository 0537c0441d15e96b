// What CAF leaves behind in a thread that is not one of its own.
//
// Spawning an actor stores, in the spawning thread, a reference to the
// actor system's logger (caf::actor_system::spawn_impl), and the system's
// destructor waits until every such reference is gone. A client thread
// that creates a session would so keep the session from ending for as long
// as the thread lives: a server that made sessions on a thread of its pool
// could never drop them. A CafThreadScope gives the thread back as it
// found it. (Any code that has a thread of its own spawn actors, such as an
// actor run inline on a device's thread that spawns, needs one too.)
//
// Include only from actors/*.cc: it names CAF's types.
#pragma once

#include <caf/logger.hpp>

namespace tact {

class CafThreadScope {
 public:
  CafThreadScope() : had_logger_(caf::logger::current_logger() != nullptr) {}
  ~CafThreadScope() {
    if (!had_logger_) caf::logger::set_current_actor_system(nullptr);
  }
  CafThreadScope(const CafThreadScope&) = delete;
  CafThreadScope& operator=(const CafThreadScope&) = delete;

 private:
  const bool had_logger_;  // a CAF thread keeps its own
};

}  // namespace tact
