#include "graph/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace tact {
namespace {

constexpr const char* kEnv = "TACT_LOG_LEVEL";

StatusOr<spdlog::level::level_enum> Parse(const std::string& name) {
  if (name == "debug") return spdlog::level::debug;
  if (name == "info") return spdlog::level::info;
  if (name == "warning") return spdlog::level::warn;
  if (name == "error") return spdlog::level::err;
  if (name == "off") return spdlog::level::off;
  return errors::InvalidArgument("log level '", name, "': use debug, info, warning, error or off");
}

spdlog::level::level_enum ToSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarning: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kOff: break;
  }
  return spdlog::level::off;
}

// Made on first use; $TACT_LOG_LEVEL (if valid) sets its first level.
spdlog::logger& Logger() {
  static spdlog::logger* logger = [] {
    auto* l = new spdlog::logger("tact", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%v");
    l->flush_on(spdlog::level::debug);  // stderr lines must not wait in a buffer
    const char* env = std::getenv(kEnv);
    StatusOr<spdlog::level::level_enum> level = Parse(env != nullptr ? env : "warning");
    l->set_level(level.ok() ? *level : spdlog::level::warn);
    return l;
  }();
  return *logger;
}

}  // namespace

Status SetLogLevel(const std::string& name) {
  TACT_ASSIGN_OR_RETURN(spdlog::level::level_enum level, Parse(name));
  Logger().set_level(level);
  setenv(kEnv, name.c_str(), 1);  // for the processes this one starts
  return Status::OK();
}

bool LogEnabled(LogLevel level) { return level != LogLevel::kOff && Logger().should_log(ToSpdlog(level)); }

void LogMessage(LogLevel level, const std::string& message) { Logger().log(ToSpdlog(level), message); }

}  // namespace tact
