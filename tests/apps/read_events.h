// Events files read by the reference reader, scripts/read_events.py
// (protobuf's own parser, from Debian's python3-protobuf).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/apps/run_command.h"

namespace tact::test {

inline bool HaveProtobufForPython() {
  return RunCommand("/usr/bin/python3 -c 'import google.protobuf' 2>&1").status == 0;
}

// One JSON object per Event of the files, in order, as protobuf's JSON form
// writes it (an int64 as a string: "step": "100").
inline std::vector<nlohmann::json> ReadEvents(const std::vector<std::string>& paths) {
  const char* env = std::getenv("TACT_SOURCE_DIR");
  const std::string source = env != nullptr && *env ? env : TACT_SOURCE_DIR_DEFAULT;
  std::string cmd = "/usr/bin/python3 " + source + "/scripts/read_events.py";
  for (const std::string& p : paths) cmd += " '" + p + "'";
  CommandResult r = RunCommand(cmd + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  std::vector<nlohmann::json> events;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  return events;
}

}  // namespace tact::test
