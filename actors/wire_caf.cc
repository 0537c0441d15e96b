#include "actors/wire_caf.h"

#include "actors/wire_auth.h"
#include "actors/wire_counts.h"

namespace tact {
namespace {

// Every message that leaves the process is signed (actors/wire_auth.h):
// its length, its Cap'n Proto bytes, then the signature's trailer.
template <typename T>
caf::error Save(caf::serializer& f, const T& x, const char* type) {
  StatusOr<std::string> bytes = Encode(x);
  if (!bytes.ok()) return caf::make_error(caf::sec::invalid_argument, bytes.status().ToString());
  if (f.context() == nullptr) return caf::make_error(caf::sec::invalid_argument, "no actor system to sign with");
  StatusOr<std::string> trailer = SignWireMessage(f.context()->system(), type, *bytes);
  if (!trailer.ok()) return caf::make_error(caf::sec::invalid_argument, trailer.status().ToString());
  uint64_t n = bytes->size();
  if (auto err = f(n)) return err;
  if (auto err = f.apply_raw(bytes->size(), bytes->data())) return err;
  return f.apply_raw(trailer->size(), trailer->data());
}

// Checks the length and the signature before decoding anything. A
// message refused before Decode (which counts its own) is counted here
// (actors/wire_counts.h).
template <typename T>
caf::error Load(caf::deserializer& f, T& x, const char* type) {
  uint64_t n = 0;
  if (auto err = f(n)) return err;
  if (n > kMaxWireMessageBytes) {
    CountDecode(type, false);
    return caf::make_error(caf::sec::invalid_argument, std::string(type) + " of " +
                               std::to_string(n) + " bytes is over the limit of " +
                               std::to_string(kMaxWireMessageBytes));
  }
  if (f.context() == nullptr) return caf::make_error(caf::sec::invalid_argument, "no actor system to verify with");
  std::string bytes(n, '\0');
  std::string trailer(kWireTrailerBytes, '\0');
  if (auto err = f.apply_raw(n, bytes.data())) {
    CountDecode(type, false);  // cut short
    return err;
  }
  if (auto err = f.apply_raw(trailer.size(), trailer.data())) {
    CountDecode(type, false);
    return err;
  }
  Status s = VerifyWireMessage(f.context()->system(), type, bytes, trailer);
  if (s.ok()) {
    s = Decode(bytes, &x);
  } else {
    CountDecode(type, false);
  }
  if (!s.ok()) return caf::make_error(caf::sec::invalid_argument, s.ToString());
  return caf::none;
}

}  // namespace

#define TACT_WIRE_DEFINE(T)                                                         \
  caf::error inspect(caf::serializer& f, T& x) { return Save(f, x, "tact::" #T); }  \
  caf::error inspect(caf::deserializer& f, T& x) { return Load(f, x, "tact::" #T); }
TACT_WIRE_DEFINE(WireRegisterPartition)
TACT_WIRE_DEFINE(WireDeregisterPartition)
TACT_WIRE_DEFINE(WireRunStep)
TACT_WIRE_DEFINE(WireStepDone)
TACT_WIRE_DEFINE(WireRendezvousTensor)
TACT_WIRE_DEFINE(WirePartitionRegistered)
TACT_WIRE_DEFINE(WireFailure)
TACT_WIRE_DEFINE(WireAbortStep)
TACT_WIRE_DEFINE(WireHealthPing)
TACT_WIRE_DEFINE(WireTaskInfo)
TACT_WIRE_DEFINE(WireDescribe)
TACT_WIRE_DEFINE(WireIntroduce)
TACT_WIRE_DEFINE(WireIntroduced)
TACT_WIRE_DEFINE(WireHello)
#undef TACT_WIRE_DEFINE

caf::error ToCafError(const Status& s) {
  if (s.ok()) return caf::none;
  return caf::error(static_cast<uint8_t>(s.code()), caf::atom("tact"), caf::make_message(WireFailure{s}));
}

Status FromCafError(const caf::error& e) {
  if (!e) return Status::OK();
  if (e.category() == caf::atom("tact") && e.context().match_elements<WireFailure>()) {
    return e.context().get_as<WireFailure>(0).status;
  }
  if (e.category() == caf::atom("tact") && e.code() <= static_cast<uint8_t>(Code::kUnauthenticated)) {
    // A failure whose payload did not arrive (it did not decode): the code
    // survives in the error itself.
    return Status(static_cast<Code>(e.code()), "(the reason did not arrive: " + caf::to_string(e) + ")");
  }
  if (e == caf::sec::request_timeout) return errors::DeadlineExceeded("actor runtime: ", caf::to_string(e));
  return errors::Unavailable("actor runtime: ", caf::to_string(e));
}

void AddRuntimeMessageTypes(caf::actor_system_config& cfg) {
  cfg.add_message_type<WireRegisterPartition>("tact::WireRegisterPartition");
  cfg.add_message_type<WireDeregisterPartition>("tact::WireDeregisterPartition");
  cfg.add_message_type<WireRunStep>("tact::WireRunStep");
  cfg.add_message_type<WireStepDone>("tact::WireStepDone");
  cfg.add_message_type<WireRendezvousTensor>("tact::WireRendezvousTensor");
  cfg.add_message_type<WirePartitionRegistered>("tact::WirePartitionRegistered");
  cfg.add_message_type<WireFailure>("tact::WireFailure");
  cfg.add_message_type<WireAbortStep>("tact::WireAbortStep");
  cfg.add_message_type<WireHealthPing>("tact::WireHealthPing");
  cfg.add_message_type<WireTaskInfo>("tact::WireTaskInfo");
  cfg.add_message_type<WireDescribe>("tact::WireDescribe");
  cfg.add_message_type<WireIntroduce>("tact::WireIntroduce");
  cfg.add_message_type<WireIntroduced>("tact::WireIntroduced");
  cfg.add_message_type<WireHello>("tact::WireHello");
}

}  // namespace tact
