#include "actors/wire_caf.h"

namespace tact {
namespace {

template <typename T>
caf::error Save(caf::serializer& f, const T& x) {
  StatusOr<std::string> bytes = Encode(x);
  if (!bytes.ok()) return caf::make_error(caf::sec::invalid_argument, bytes.status().ToString());
  uint64_t n = bytes->size();
  if (auto err = f(n)) return err;
  return f.apply_raw(bytes->size(), bytes->data());
}

template <typename T>
caf::error Load(caf::deserializer& f, T& x) {
  uint64_t n = 0;
  if (auto err = f(n)) return err;
  if (n > kMaxWireMessageBytes) {
    return caf::make_error(caf::sec::invalid_argument,
                           "wire message of " + std::to_string(n) + " bytes is over the limit");
  }
  std::string bytes(n, '\0');
  if (auto err = f.apply_raw(n, bytes.data())) return err;
  Status s = Decode(bytes, &x);
  if (!s.ok()) return caf::make_error(caf::sec::invalid_argument, s.ToString());
  return caf::none;
}

}  // namespace

#define TACT_WIRE_DEFINE(T)                                                         \
  caf::error inspect(caf::serializer& f, T& x) { return Save(f, x); }               \
  caf::error inspect(caf::deserializer& f, T& x) { return Load(f, x); }
TACT_WIRE_DEFINE(WireRegisterPartition)
TACT_WIRE_DEFINE(WireRunStep)
TACT_WIRE_DEFINE(WireStepDone)
TACT_WIRE_DEFINE(WireRendezvousTensor)
TACT_WIRE_DEFINE(WireAbortStep)
TACT_WIRE_DEFINE(WireHealthPing)
TACT_WIRE_DEFINE(WireTaskInfo)
#undef TACT_WIRE_DEFINE

caf::error ToCafError(const Status& s) {
  if (s.ok()) return caf::none;
  return caf::error(static_cast<uint8_t>(s.code()), caf::atom("tact"), caf::make_message(s.message()));
}

Status FromCafError(const caf::error& e) {
  if (!e) return Status::OK();
  if (e.category() == caf::atom("tact") && e.code() <= static_cast<uint8_t>(Code::kUnauthenticated)) {
    std::string message;
    if (e.context().match_elements<std::string>()) message = e.context().get_as<std::string>(0);
    return Status(static_cast<Code>(e.code()), std::move(message));
  }
  if (e == caf::sec::request_timeout) return errors::DeadlineExceeded("actor runtime: ", caf::to_string(e));
  return errors::Unavailable("actor runtime: ", caf::to_string(e));
}

void AddRuntimeMessageTypes(caf::actor_system_config& cfg) {
  cfg.add_message_type<WireRegisterPartition>("tact::WireRegisterPartition");
  cfg.add_message_type<WireRunStep>("tact::WireRunStep");
  cfg.add_message_type<WireStepDone>("tact::WireStepDone");
  cfg.add_message_type<WireRendezvousTensor>("tact::WireRendezvousTensor");
  cfg.add_message_type<WireAbortStep>("tact::WireAbortStep");
  cfg.add_message_type<WireHealthPing>("tact::WireHealthPing");
  cfg.add_message_type<WireTaskInfo>("tact::WireTaskInfo");
}

}  // namespace tact
