#include "graph/status.h"

#include <cstdio>
#include <cstdlib>

namespace tact {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kCancelled: return "Cancelled";
    case Code::kUnknown: return "Unknown";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kDeadlineExceeded: return "DeadlineExceeded";
    case Code::kNotFound: return "NotFound";
    case Code::kAlreadyExists: return "AlreadyExists";
    case Code::kPermissionDenied: return "PermissionDenied";
    case Code::kResourceExhausted: return "ResourceExhausted";
    case Code::kFailedPrecondition: return "FailedPrecondition";
    case Code::kAborted: return "Aborted";
    case Code::kOutOfRange: return "OutOfRange";
    case Code::kUnimplemented: return "Unimplemented";
    case Code::kInternal: return "Internal";
    case Code::kUnavailable: return "Unavailable";
    case Code::kDataLoss: return "DataLoss";
    case Code::kUnauthenticated: return "Unauthenticated";
  }
  return "Unknown";
}

Status::Status(Code code, std::string message) {
  // An "error" with code OK would be a contradiction; keep it OK.
  if (code != Code::kOk) state_ = std::make_shared<const State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return ok() ? kEmpty : state_->message;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(state_->code)) + ": " + state_->message;
}

Status Status::WithPrefix(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(state_->code, prefix + state_->message);
}

void DieOnBadStatusOrAccess(const Status& status) {
  std::fprintf(stderr, "tact: value() of a StatusOr holding an error: %s\n",
               status.ToString().c_str());
  std::abort();
}

}  // namespace tact
