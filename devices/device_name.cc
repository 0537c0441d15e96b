#include "devices/device_name.h"

#include <cctype>
#include <vector>

namespace tact {
namespace {

std::vector<std::string> SplitSlash(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string::npos) end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool ParseId(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *out = std::stoll(s);
  return true;
}

bool ValidJob(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool ValidType(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// "TYPE:ID" or "TYPE:*" or "TYPE" into the name.
bool ParseTypeAndId(const std::string& s, DeviceName* n) {
  const size_t colon = s.find(':');
  const std::string type = s.substr(0, colon);
  if (!ValidType(type)) return false;
  n->has_type = true;
  n->type = Upper(type);
  if (colon == std::string::npos) return true;
  const std::string id = s.substr(colon + 1);
  if (id == "*") return true;
  n->has_id = ParseId(id, &n->id);
  return n->has_id;
}

}  // namespace

StatusOr<DeviceName> DeviceName::Parse(const std::string& name) {
  DeviceName n;
  if (name.empty()) return n;
  auto bad = [&](const std::string& part) {
    return errors::InvalidArgument("malformed device name '", name, "': bad part '", part,
                                   "' (expected /job:J/replica:R/task:T/device:TYPE:N)");
  };
  if (name[0] != '/') return bad(name);
  for (const std::string& part : SplitSlash(name)) {
    const size_t colon = part.find(':');
    if (colon == std::string::npos) return bad(part);
    const std::string key = part.substr(0, colon);
    const std::string value = part.substr(colon + 1);
    if (key == "job") {
      if (n.has_job || !ValidJob(value)) return bad(part);
      n.has_job = true;
      n.job = value;
    } else if (key == "replica") {
      if (n.has_replica || !ParseId(value, &n.replica)) return bad(part);
      n.has_replica = true;
    } else if (key == "task") {
      if (n.has_task || !ParseId(value, &n.task)) return bad(part);
      n.has_task = true;
    } else if (key == "device") {
      if (n.has_type || !ParseTypeAndId(value, &n)) return bad(part);
    } else if (Upper(key) == "CPU" || Upper(key) == "GPU") {
      // The short form "/cpu:0".
      if (n.has_type || !ParseTypeAndId(part, &n)) return bad(part);
    } else {
      return bad(part);
    }
  }
  return n;
}

DeviceName DeviceName::Full(const std::string& job, int64_t replica, int64_t task,
                            const std::string& type, int64_t id) {
  DeviceName n;
  n.has_job = n.has_replica = n.has_task = n.has_type = n.has_id = true;
  n.job = job;
  n.replica = replica;
  n.task = task;
  n.type = Upper(type);
  n.id = id;
  return n;
}

std::string DeviceName::ToString() const {
  std::string s;
  if (has_job) s += "/job:" + job;
  if (has_replica) s += "/replica:" + std::to_string(replica);
  if (has_task) s += "/task:" + std::to_string(task);
  if (has_type) s += "/device:" + type + ":" + (has_id ? std::to_string(id) : std::string("*"));
  return s;
}

bool DeviceName::Matches(const DeviceName& d) const {
  if (has_job && (!d.has_job || d.job != job)) return false;
  if (has_replica && (!d.has_replica || d.replica != replica)) return false;
  if (has_task && (!d.has_task || d.task != task)) return false;
  if (has_type && (!d.has_type || d.type != type)) return false;
  if (has_id && (!d.has_id || d.id != id)) return false;
  return true;
}

StatusOr<DeviceName> DeviceName::Merge(const DeviceName& a, const DeviceName& b) {
  DeviceName m = a;
  auto conflict = [&](const char* part) {
    return errors::InvalidArgument("device specifications '", a.ToString(), "' and '",
                                   b.ToString(), "' disagree on the ", part);
  };
  if (b.has_job) {
    if (m.has_job && m.job != b.job) return conflict("job");
    m.has_job = true;
    m.job = b.job;
  }
  if (b.has_replica) {
    if (m.has_replica && m.replica != b.replica) return conflict("replica");
    m.has_replica = true;
    m.replica = b.replica;
  }
  if (b.has_task) {
    if (m.has_task && m.task != b.task) return conflict("task");
    m.has_task = true;
    m.task = b.task;
  }
  if (b.has_type) {
    if (m.has_type && m.type != b.type) return conflict("device type");
    m.has_type = true;
    m.type = b.type;
  }
  if (b.has_id) {
    if (m.has_id && m.id != b.id) return conflict("device id");
    m.has_id = true;
    m.id = b.id;
  }
  return m;
}

}  // namespace tact
