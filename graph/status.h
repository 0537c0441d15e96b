// Status and StatusOr<T>: every fallible call in tact returns one of these.
//
// An OK Status holds no allocation, so returning Status::OK() costs nothing.
// No exception crosses a public API; errors are values, and their message
// names what was wrong (the node, the op, the file or the field).
#pragma once

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace tact {

enum class Code {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// "InvalidArgument", "NotFound", ...
const char* CodeName(Code code);

class Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;
  // "InvalidArgument: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is `prefix` + message (an OK status stays OK).
  Status WithPrefix(const std::string& prefix) const;

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

 private:
  struct State {
    Code code;
    std::string message;
  };
  // Shared: copying a Status is cheap and the state is immutable.
  std::shared_ptr<const State> state_;
};

namespace errors {
namespace internal {
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace internal

#define TACT_DEFINE_ERROR(NAME)                                       \
  template <typename... Args>                                         \
  Status NAME(const Args&... args) {                                  \
    return Status(Code::k##NAME, internal::StrCat(args...));          \
  }
TACT_DEFINE_ERROR(Cancelled)
TACT_DEFINE_ERROR(Unknown)
TACT_DEFINE_ERROR(InvalidArgument)
TACT_DEFINE_ERROR(DeadlineExceeded)
TACT_DEFINE_ERROR(NotFound)
TACT_DEFINE_ERROR(AlreadyExists)
TACT_DEFINE_ERROR(PermissionDenied)
TACT_DEFINE_ERROR(ResourceExhausted)
TACT_DEFINE_ERROR(FailedPrecondition)
TACT_DEFINE_ERROR(Aborted)
TACT_DEFINE_ERROR(OutOfRange)
TACT_DEFINE_ERROR(Unimplemented)
TACT_DEFINE_ERROR(Internal)
TACT_DEFINE_ERROR(Unavailable)
TACT_DEFINE_ERROR(DataLoss)
TACT_DEFINE_ERROR(Unauthenticated)
#undef TACT_DEFINE_ERROR
}  // namespace errors

// Either a value or a non-OK Status. Accessing the value of an error is a
// programmer error (it aborts); check ok() first.
template <typename T>
class StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = errors::Internal("StatusOr built from an OK Status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { CheckValue(); return *value_; }
  const T& value() const& { CheckValue(); return *value_; }
  T&& value() && { CheckValue(); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void CheckValue() const;
  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void DieOnBadStatusOrAccess(const Status& status);

template <typename T>
void StatusOr<T>::CheckValue() const {
  if (!value_) DieOnBadStatusOrAccess(status_);
}

}  // namespace tact

#define TACT_STATUS_CONCAT_INNER(a, b) a##b
#define TACT_STATUS_CONCAT(a, b) TACT_STATUS_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` is a non-OK Status.
#define TACT_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::tact::Status _tact_status = (expr);          \
    if (!_tact_status.ok()) return _tact_status;   \
  } while (0)

// `lhs` = the value of the StatusOr `expr`, or return its error.
#define TACT_ASSIGN_OR_RETURN(lhs, expr) \
  TACT_ASSIGN_OR_RETURN_IMPL(TACT_STATUS_CONCAT(_tact_statusor_, __LINE__), lhs, expr)
#define TACT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
