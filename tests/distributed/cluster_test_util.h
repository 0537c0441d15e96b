// What the distributed tests share: a local cluster of real `tact worker`
// processes (TACT_BINARY) and a session on it with a graph.
#pragma once

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"

namespace tact::test_util {

// Stops `task` (SIGTERM) and returns what it prints after `marker` on the
// line that has it (`tact worker` prints its counts as it stops), waiting
// up to 20 s; empty after a test failure saying why.
inline std::string StopAndReadLine(apps::LocalCluster& cluster, const std::string& task,
                                   const std::string& marker) {
  EXPECT_TRUE(cluster.Signal(task, SIGTERM).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string log = cluster.Log(task);
    const size_t at = log.find(marker);
    if (at != std::string::npos && log.find('\n', at) != std::string::npos) {
      const size_t from = at + marker.size();
      return log.substr(from, log.find('\n', at) - from);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << task << " printed no '" << marker << "'; its log:\n" << cluster.Log(task);
  return "";
}

// The cluster, or null after a test failure saying why.
inline std::unique_ptr<apps::LocalCluster> StartCluster(std::map<std::string, int> jobs) {
  apps::LocalClusterOptions o;
  o.binary = TACT_BINARY;
  o.jobs = std::move(jobs);
  auto cluster = apps::LocalCluster::Start(o);
  EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
  return cluster.ok() ? std::move(cluster).value() : nullptr;
}

// A session with `o` (default options unless given) on `cluster`, extended
// with `graph`; null after a test failure saying why.
inline std::unique_ptr<Session> Connect(const apps::LocalCluster& cluster, const GraphDef& graph,
                                        SessionOptions o = {}) {
  o.cluster = cluster.spec();
  o.cluster_secret = cluster.secret();
  auto session = Session::Create(o);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return nullptr;
  Status s = (*session)->Extend(graph);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::move(session).value();
}

// Cuts every connection of `task` (SIGUSR1 to its `tact worker`), then
// runs `fetch` until a step passes, within 20 s, and returns that step's
// value. The steps that fail meanwhile are the ones the cut broke, or ones
// started before the master saw it (Unavailable); any other error is
// returned as it is. The session needs supervision.task_wait_ms, so that a
// Run waits for the cut task to be attached again.
inline StatusOr<Tensor> CutThenRun(apps::LocalCluster& cluster, const std::string& task, Session& session,
                                   const std::string& fetch) {
  TACT_RETURN_IF_ERROR(cluster.Signal(task, SIGUSR1));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    StatusOr<std::vector<Tensor>> out = session.Run({}, {fetch}, {});
    if (out.ok()) return out->at(0);
    if (out.status().code() != Code::kUnavailable) return out.status();
    if (std::chrono::steady_clock::now() >= deadline) {
      return out.status().WithPrefix("no step passed within 20 s of the cut: ");
    }
  }
}

// Whether process `pid` is in the stopped state ('T' in /proc) by then.
inline bool StoppedWithin(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t end = line.rfind(')');  // the state follows the command's name
    if (end != std::string::npos && end + 2 < line.size() && line[end + 2] == 'T') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace tact::test_util
