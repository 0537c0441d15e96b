// DeviceName: parse, format and match device names of the paper's form
// "/job:worker/replica:0/task:1/device:CPU:0" (paper 3.3).
//
// A name may be partial: "/device:cpu:*", "/job:worker/task:1", "/gpu:0"
// (the short form of "/device:GPU:0"), or "" (anything). Device types are
// case-insensitive and kept upper-case ("CPU", "GPU").
//
//   auto spec = DeviceName::Parse("/job:worker/device:cpu:*");
//   auto full = DeviceName::Parse("/job:worker/replica:0/task:1/device:CPU:0");
//   spec->Matches(*full);  // true
#pragma once

#include <cstdint>
#include <string>

#include "graph/status.h"

namespace tact {

struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int64_t replica = 0;
  bool has_task = false;
  int64_t task = 0;
  bool has_type = false;
  std::string type;  // upper case
  bool has_id = false;
  int64_t id = 0;

  // InvalidArgument naming the name and the part that is wrong.
  static StatusOr<DeviceName> Parse(const std::string& name);
  // Builds a full name.
  static DeviceName Full(const std::string& job, int64_t replica, int64_t task,
                         const std::string& type, int64_t id);

  // Every part given (a concrete device, not a specification).
  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
  // Canonical form: the parts present, in order, "*" for an id left open
  // after a type ("/job:w/device:CPU:*").
  std::string ToString() const;
  // True if every part this name gives equals that part of `device`
  // (a specification matches the devices it allows).
  bool Matches(const DeviceName& device) const;
  // Combines two specifications (for a colocation group). InvalidArgument if
  // they disagree on some part.
  static StatusOr<DeviceName> Merge(const DeviceName& a, const DeviceName& b);

  bool operator==(const DeviceName& o) const { return ToString() == o.ToString(); }
};

}  // namespace tact
