// The runtime's wire messages as CAF message types. Through CAF's
// serializer a message is its Cap'n Proto bytes (actors/wire.h), prefixed
// by their length; nothing else goes on the wire. Inside a process CAF
// never serialises, so these cost nothing there.
//
// Every process registers the same types under the same names with
// AddRuntimeMessageTypes (a type known to one side only arrives as an empty
// message in CAF 0.17). A message over kMaxWireMessageBytes, or one whose
// bytes do not decode, is refused with an error and the receiver stays up.
//
// Include only from actors/*.cc: it pulls in CAF.
#pragma once

#include <caf/all.hpp>

#include "actors/wire.h"

namespace tact {

constexpr uint64_t kMaxWireMessageBytes = uint64_t{1} << 31;

void AddRuntimeMessageTypes(caf::actor_system_config& cfg);

// A failed Status as a CAF error for replies that fail: category "tact",
// the code, and a WireFailure as its payload, so that between processes
// the reason travels as Cap'n Proto like every other message. OK gives no
// error.
caf::error ToCafError(const Status& s);
// Back at the boundary: a "tact" error is the Status it carried; CAF's own
// errors (an actor that is gone, a timeout) become Unavailable or
// DeadlineExceeded, naming what CAF said.
Status FromCafError(const caf::error& e);

#define TACT_WIRE_INSPECT(T)                                             \
  caf::error inspect(caf::serializer& f, T& x);                          \
  caf::error inspect(caf::deserializer& f, T& x);                        \
  template <class Inspector>                                             \
  typename Inspector::result_type inspect(Inspector& f, T&) {            \
    return f(caf::meta::type_name("tact::" #T));                         \
  }
TACT_WIRE_INSPECT(WireRegisterPartition)
TACT_WIRE_INSPECT(WireDeregisterPartition)
TACT_WIRE_INSPECT(WireRunStep)
TACT_WIRE_INSPECT(WireStepDone)
TACT_WIRE_INSPECT(WireRendezvousTensor)
TACT_WIRE_INSPECT(WirePartitionRegistered)
TACT_WIRE_INSPECT(WireFailure)
TACT_WIRE_INSPECT(WireAbortStep)
TACT_WIRE_INSPECT(WireHealthPing)
TACT_WIRE_INSPECT(WireTaskInfo)
TACT_WIRE_INSPECT(WireDescribe)
TACT_WIRE_INSPECT(WireIntroduce)
TACT_WIRE_INSPECT(WireIntroduced)
TACT_WIRE_INSPECT(WireHello)
#undef TACT_WIRE_INSPECT

}  // namespace tact
