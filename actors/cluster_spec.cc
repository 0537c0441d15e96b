#include "actors/cluster_spec.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "actors/tls_files.h"

namespace tact {

std::string TaskAddress::ToString() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

StatusOr<TaskAddress> ParseTaskAddress(std::string_view text, const std::string& what) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return errors::InvalidArgument(what, ": '", text, "' is not host:port");
  }
  TaskAddress a;
  a.host = std::string(text.substr(0, colon));
  // An IPv6 address in brackets, as in a URL and TensorFlow's cluster
  // specs ("[::1]:2222"); the sockets take it without them.
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.host = a.host.substr(1, a.host.size() - 2);
  } else if (a.host.find_first_of(":[]") != std::string::npos) {
    return errors::InvalidArgument(what, ": '", text,
                                   "': an IPv6 address goes in brackets, as in '[::1]:2222'");
  }
  const std::string port(text.substr(colon + 1));
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p < 1 || p > 65535) {
    return errors::InvalidArgument(what, ": '", text, "' has no port in 1..65535");
  }
  a.port = static_cast<uint16_t>(p);
  return a;
}

std::string TaskName(const std::string& job, int index) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(index);
}

Status ClusterTls::Check() const {
  if (certificate.empty() && key.empty() && cafile.empty()) return Status::OK();
  const std::pair<const char*, const std::string*> files[] = {
      {"certificate", &certificate}, {"key", &key}, {"CA file", &cafile}};
  for (const auto& [what, path] : files) {
    if (path->empty()) return errors::InvalidArgument("TLS needs a certificate, its key and a CA file: no ", what);
    if (!std::ifstream(*path)) return errors::InvalidArgument("TLS ", what, " ", *path, ": cannot open");
  }
  return CheckTlsFiles(certificate, key, cafile);
}

StatusOr<ClusterSpec> ClusterSpec::Parse(std::string_view json, const std::string& origin) {
  nlohmann::json j = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (j.is_discarded()) return errors::InvalidArgument(origin, ": not valid JSON");
  if (!j.is_object() || !j.contains("cluster") || !j["cluster"].is_object()) {
    return errors::InvalidArgument(origin, ": no \"cluster\" object");
  }
  ClusterSpec spec;
  std::set<std::string> seen;
  for (const auto& [job, tasks] : j["cluster"].items()) {
    const std::string field = origin + ": cluster." + job;
    if (job.empty() || job.find_first_of("/: ") != std::string::npos) {
      return errors::InvalidArgument(origin, ": job name '", job, "' is empty or holds '/', ':' or ' '");
    }
    if (!tasks.is_array() || tasks.empty()) {
      return errors::InvalidArgument(field, " is not a non-empty list of \"host:port\"");
    }
    std::vector<TaskAddress>& list = spec.jobs[job];
    for (size_t i = 0; i < tasks.size(); ++i) {
      const std::string task_field = field + "[" + std::to_string(i) + "]";
      if (!tasks[i].is_string()) return errors::InvalidArgument(task_field, " is not a string");
      TACT_ASSIGN_OR_RETURN(TaskAddress a, ParseTaskAddress(tasks[i].get<std::string>(), task_field));
      if (!seen.insert(a.ToString()).second) {
        return errors::InvalidArgument(task_field, ": address ", a.ToString(),
                                       " is given to two tasks");
      }
      list.push_back(std::move(a));
    }
  }
  if (spec.jobs.empty()) return errors::InvalidArgument(origin, ": \"cluster\" names no job");
  if (j.contains("task")) {
    const nlohmann::json& t = j["task"];
    if (!t.is_object() || !t.contains("type") || !t["type"].is_string() || !t.contains("index") ||
        !t["index"].is_number_integer()) {
      return errors::InvalidArgument(origin, ": \"task\" must be {\"type\": job, \"index\": n}");
    }
    spec.task_type = t["type"].get<std::string>();
    spec.task_index = t["index"].get<int>();
    auto job = spec.jobs.find(spec.task_type);
    if (job == spec.jobs.end() || spec.task_index < 0 ||
        spec.task_index >= static_cast<int>(job->second.size())) {
      return errors::InvalidArgument(origin, ": \"task\" ", spec.task_type, ":", spec.task_index,
                                     " is not a task of the cluster");
    }
  }
  return spec;
}

StatusOr<ClusterSpec> ClusterSpec::FromFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) return errors::NotFound("cluster spec ", path, ": cannot open");
  std::stringstream text;
  text << f.rdbuf();
  return Parse(text.str(), "cluster spec " + path);
}

StatusOr<ClusterSpec> ClusterSpec::FromEnvironment() {
  const char* env = std::getenv("TF_CONFIG");
  if (env == nullptr) return errors::NotFound("TF_CONFIG is not set");
  return Parse(env, "TF_CONFIG");
}

std::vector<std::string> ClusterSpec::Tasks() const {
  std::vector<std::string> names;
  for (const auto& [job, tasks] : jobs) {
    for (size_t i = 0; i < tasks.size(); ++i) names.push_back(TaskName(job, static_cast<int>(i)));
  }
  return names;
}

StatusOr<TaskAddress> ClusterSpec::Address(const std::string& task) const {
  for (const auto& [job, tasks] : jobs) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (TaskName(job, static_cast<int>(i)) == task) return tasks[i];
    }
  }
  std::string known;
  for (const std::string& t : Tasks()) known += (known.empty() ? "" : ", ") + t;
  return errors::NotFound("task ", task, " is not in the cluster (", known, ")");
}

std::string ClusterSpec::ToJson() const {
  nlohmann::json j;
  for (const auto& [job, tasks] : jobs) {
    nlohmann::json list = nlohmann::json::array();
    for (const TaskAddress& a : tasks) list.push_back(a.ToString());
    j["cluster"][job] = list;
  }
  if (!task_type.empty()) j["task"] = {{"type", task_type}, {"index", task_index}};
  return j.dump();
}

}  // namespace tact
