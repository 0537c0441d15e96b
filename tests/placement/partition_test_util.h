// Running a graph whole on one device and partitioned on several, with one
// shared local rendezvous, so partitioner tests can compare values bit for
// bit. Fetches are client-terminated _Sends, as BuildSubgraph inserts them.
#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/executor.h"
#include "devices/device.h"
#include "graph/op_builder.h"
#include "kernels/rendezvous.h"
#include "placement/partitioner.h"

namespace tact::test {

inline std::string Dev(int i) {
  return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i);
}

inline constexpr char kFetchFrom[] = "fetch";
inline constexpr char kClient[] = "client";

inline void Fetch(const Scope& s, Output x, const std::string& name) {
  OpBuilder(s.WithOpName(name + "_fetch"), "_Send").Input(x)
      .Attr("tensor_name", name).Attr("send_device", kFetchFrom)
      .Attr("send_device_incarnation", 0).Attr("recv_device", kClient)
      .Attr("client_terminated", true).Finalize();
}

inline std::string FetchKey(const std::string& name) {
  return RendezvousKey(kFetchFrom, 0, kClient, name);
}

// Sets every node's assigned device to Dev(device_of(node)).
inline void Place(Graph* g, const std::function<int(const Node*)>& device_of) {
  for (Node* n : g->nodes()) n->set_assigned_device(Dev(device_of(n)));
}

inline StatusOr<std::vector<Tensor>> CollectFetches(Rendezvous* rv,
                                                    const std::vector<std::string>& fetches) {
  std::vector<Tensor> out;
  for (const std::string& f : fetches) {
    TACT_ASSIGN_OR_RETURN(Tensor t, rv->Recv(FetchKey(f)));
    out.push_back(t);
  }
  return out;
}

// One step of the whole graph on `device`.
inline StatusOr<std::vector<Tensor>> RunWhole(std::shared_ptr<const Graph> g, Device* device,
                                              const std::vector<std::string>& fetches,
                                              const std::string& container = "") {
  TACT_ASSIGN_OR_RETURN(auto ex, Executor::Create(g, device));
  auto rv = NewLocalRendezvous();
  Executor::Args args;
  args.rendezvous = rv.get();
  args.default_container = &container;
  TACT_RETURN_IF_ERROR(ex->Run(args));
  return CollectFetches(rv.get(), fetches);
}

// The partitions, each built into a Graph and an executor on its device.
class PartitionedRun {
 public:
  // `devices` must hold every device named in `parts` and outlive this.
  static StatusOr<std::unique_ptr<PartitionedRun>> Create(
      const PartitionResult& parts, const std::map<std::string, Device*>& devices) {
    auto run = std::make_unique<PartitionedRun>();
    for (const auto& [name, def] : parts.partitions) {
      auto it = devices.find(name);
      if (it == devices.end()) return errors::NotFound("no device ", name);
      TACT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(def));
      std::shared_ptr<const Graph> shared(std::move(g));
      TACT_ASSIGN_OR_RETURN(auto ex, Executor::Create(shared, it->second));
      run->executors_.push_back(std::move(ex));
    }
    return run;
  }

  // One step of every partition, all sharing one rendezvous.
  StatusOr<std::vector<Tensor>> Step(const std::vector<std::string>& fetches,
                                     const std::string& container = "") {
    auto rv = NewLocalRendezvous();
    Executor::Args args;
    args.rendezvous = rv.get();
    args.default_container = &container;
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
    Status first = Status::OK();
    for (const auto& ex : executors_) {
      ex->RunAsync(args, [&](const Status& s) {
        std::lock_guard<std::mutex> l(mu);
        if (first.ok() && !s.ok()) first = s;
        ++done;
        cv.notify_all();
      });
    }
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return done == executors_.size(); });
    }
    TACT_RETURN_IF_ERROR(first);
    return CollectFetches(rv.get(), fetches);
  }

 private:
  std::vector<std::unique_ptr<Executor>> executors_;
};

inline void ExpectBitwiseEqual(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].BitwiseEqual(b[i])) << "fetch " << i << ": " << a[i].DebugString()
                                         << " vs " << b[i].DebugString();
  }
}

}  // namespace tact::test
