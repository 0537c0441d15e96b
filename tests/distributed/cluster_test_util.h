// What the distributed tests share: a local cluster of real `tact worker`
// processes (TACT_BINARY) and a session on it with a graph.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "actors/session.h"
#include "apps/cluster/local_cluster.h"

namespace tact::test_util {

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

}  // namespace tact::test_util
