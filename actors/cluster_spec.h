// A cluster: its jobs and the address of each task (paper 3.3: "a cluster
// of worker processes"), in TensorFlow's TF_CONFIG layout so that users can
// reuse the files and environments they have:
//
//   {"cluster": {"ps": ["127.0.0.1:2222"],
//                "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]},
//    "task": {"type": "worker", "index": 0}}
//
// "task" says which task the reading process is; a client's spec may omit
// it. Task i of job J is /job:J/replica:0/task:i.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "graph/status.h"

namespace tact {

struct TaskAddress {
  std::string host;
  uint16_t port = 0;
  std::string ToString() const;
};

// "host:port" with a port in 1..65535, an IPv6 host in brackets
// ("[::1]:2222", kept without them); the error names `what`.
StatusOr<TaskAddress> ParseTaskAddress(std::string_view text, const std::string& what);

// "/job:J/replica:0/task:T".
std::string TaskName(const std::string& job, int index);

// TLS for a cluster's connections (CAF's openssl module): every process
// presents `certificate` (PEM, with its `key`) and accepts only peers whose
// certificate `cafile` signed. All empty: plain TCP.
struct ClusterTls {
  std::string certificate;
  std::string key;
  std::string cafile;
  bool enabled() const { return !certificate.empty(); }
  // InvalidArgument naming what is missing when only some are given, a
  // file that cannot be read, or one that the handshake would refuse
  // (tls_files.h).
  Status Check() const;
};

struct ClusterSpec {
  // Job name -> its tasks' "host:port", by task index.
  std::map<std::string, std::vector<TaskAddress>> jobs;
  // The "task" object: which task this process is (empty type: not given).
  std::string task_type;
  int task_index = -1;

  // Errors name the origin (a file, "TF_CONFIG") and the field at fault:
  // not JSON, no "cluster", a job that is not a list, an address without a
  // port, the same address twice, a "task" naming no task of the cluster.
  static StatusOr<ClusterSpec> Parse(std::string_view json, const std::string& origin);
  static StatusOr<ClusterSpec> FromFile(const std::string& path);
  // From the TF_CONFIG environment variable; NotFound when it is unset.
  static StatusOr<ClusterSpec> FromEnvironment();

  // Every task's name, jobs in name order, tasks by index.
  std::vector<std::string> Tasks() const;
  // The address of a task by name; NotFound naming it and the cluster's tasks.
  StatusOr<TaskAddress> Address(const std::string& task) const;
  // TF_CONFIG JSON for this cluster, with "task" when task_type is set.
  std::string ToJson() const;
};

}  // namespace tact
