// Graph pieces for executor tests: feeds as _Recv and fetches as _Send
// through a step's rendezvous, as the session will insert them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "actors/executor.h"
#include "graph/op_builder.h"
#include "kernels/rendezvous.h"

namespace tact::test {

inline constexpr char kDev[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// Feeds go client -> device, fetches device -> client.
inline std::string Key(const std::string& name) { return RendezvousKey("client", 0, kDev, name); }
inline std::string FetchKey(const std::string& name) { return RendezvousKey(kDev, 0, "client", name); }

inline Output Feed(const Scope& s, const std::string& name) {
  return OpBuilder(s.WithOpName(name), "_Recv")
      .Attr("tensor_type", DT_FLOAT).Attr("tensor_name", name).Attr("send_device", "client")
      .Attr("send_device_incarnation", 0).Attr("recv_device", kDev).FinalizeOutput();
}

inline void Fetch(const Scope& s, Output x, const std::string& name) {
  OpBuilder(s.WithOpName(name + "_send"), "_Send").Input(x)
      .Attr("tensor_name", name).Attr("send_device", kDev).Attr("send_device_incarnation", 0)
      .Attr("recv_device", "client").Finalize();
}

// A _Recv on `recv_device` of a float that no device ever sends: a step
// that reaches it waits until the step is aborted.
inline NodeDef RecvNobodySends(const std::string& name, const std::string& recv_device) {
  NodeDef n;
  n.name = name;
  n.op = "_Recv";
  n.attrs["tensor_type"] = AttrValue::Type(DT_FLOAT);
  n.attrs["tensor_name"] = AttrValue::String("elsewhere:0");
  n.attrs["send_device"] = AttrValue::String("/job:localhost/replica:0/task:0/device:CPU:9");
  n.attrs["send_device_incarnation"] = AttrValue::Int(1);
  n.attrs["recv_device"] = AttrValue::String(recv_device);
  n.attrs["client_terminated"] = AttrValue::Bool(false);
  return n;
}

inline std::unique_ptr<Executor> MakeExecutor(const Scope& s, Device* device) {
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto ex = Executor::Create(s.shared_graph(), device);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  return ex.ok() ? std::move(ex).value() : nullptr;
}

}  // namespace tact::test
