// The runtime's one way to say what is not an error returned to a caller:
// a refused connection, a dropped tensor link, a message that did not
// decode. Quiet by default: warnings and errors only; `--log-level` on
// every `tact` command, or $TACT_LOG_LEVEL, changes that (a process's
// children, such as a local cluster's workers, inherit it). Written by
// spdlog to stderr, one line each, as the message reads.
//
// Thread-safe.
#pragma once

#include <string>

#include "graph/status.h"

namespace tact {

enum class LogLevel { kDebug, kInfo, kWarning, kError, kOff };

// "debug", "info", "warning", "error" or "off"; InvalidArgument naming the
// value otherwise.
Status SetLogLevel(const std::string& name);
bool LogEnabled(LogLevel level);
void LogMessage(LogLevel level, const std::string& message);

template <typename... Args>
void LogInfo(const Args&... args) {
  if (LogEnabled(LogLevel::kInfo)) LogMessage(LogLevel::kInfo, errors::internal::StrCat(args...));
}

template <typename... Args>
void LogWarning(const Args&... args) {
  if (LogEnabled(LogLevel::kWarning)) LogMessage(LogLevel::kWarning, errors::internal::StrCat(args...));
}

}  // namespace tact
