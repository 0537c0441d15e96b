// What the concurrent-step tests share, in one process and across
// processes: a graph whose step crosses two devices twice, client threads
// that each run it with their own feeds, and a thread that extends the
// graph meanwhile (TensorFlow allows Extend and Run at once).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact::test_util {

// y = x * 3 on `device0`, then + x on `device1`: y is 4x.
inline GraphDef TripleThenAdd(const std::string& device0, const std::string& device1) {
  Scope s = Scope::NewRootScope();
  Scope d0 = s.WithDevice(device0);
  Scope d1 = s.WithDevice(device1);
  Output x = Placeholder(d0.WithOpName("x"), DT_FLOAT);
  Output tripled = Mul(d0.WithOpName("tripled"), x, Const(d0, Tensor::Scalar<float>(3)));
  Add(d1.WithOpName("y"), tripled, x);
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

// `threads` client threads, `runs` Runs each of TripleThenAdd's graph,
// every thread feeding values of its own; expects every Run to succeed and
// fetch 4x its feed.
inline void ExpectOwnValuesFromThreads(Session& session, int threads, int runs) {
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      for (int r = 0; r < runs; ++r) {
        const float x = static_cast<float>(t * 1000 + r);
        auto out = session.Run({{"x:0", Tensor::Scalar<float>(x)}}, {"y:0"}, {});
        if (!out.ok()) {
          ++failed;
        } else if ((*out)[0].scalar<float>() != 4 * x) {
          ++wrong;
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

// A GraphDef of two nodes, "plus_<i>" = y + "c_<i>", where c_<i> is the
// constant i and y is TripleThenAdd's.
inline GraphDef PlusNode(int i) {
  Scope s = Scope::NewRootScope();
  Output c = Const(s.WithOpName("c_" + std::to_string(i)), Tensor::Scalar<float>(static_cast<float>(i)));
  GraphDef def = *s.ToGraphDef();
  NodeDef plus{"plus_" + std::to_string(i), "Add", {"y", c.name()}, "", {}};
  plus.attrs["T"] = AttrValue::Type(DT_FLOAT);
  def.nodes.push_back(plus);
  return def;
}

// ExpectOwnValuesFromThreads, while one more thread extends the graph
// `extensions` times with PlusNode(i), each time running the new node at
// once, and twice tries an extension that is refused (a name defined
// twice): every Run keeps its values and every new node runs.
inline void ExpectExtensionsBesideRunningThreads(Session& session, int extensions, int threads, int runs) {
  std::thread extender([&] {
    for (int i = 0; i < extensions; ++i) {
      Status st = session.Extend(PlusNode(i));
      ASSERT_TRUE(st.ok()) << "Extend " << i << ": " << st.ToString();
      if (i == 0 || i == extensions - 1) {
        EXPECT_EQ(session.Extend(PlusNode(i)).code(), Code::kAlreadyExists);
      }
      const std::string fetch = "plus_" + std::to_string(i) + ":0";
      auto out = session.Run({{"x:0", Tensor::Scalar<float>(2)}}, {fetch}, {});
      ASSERT_TRUE(out.ok()) << fetch << ": " << out.status().ToString();
      EXPECT_EQ((*out)[0].scalar<float>(), 8.0f + static_cast<float>(i)) << fetch;
    }
  });
  ExpectOwnValuesFromThreads(session, threads, runs);
  extender.join();
}

}  // namespace tact::test_util
