// Shared by the tests of tests/train/: a Session over a scope's graph, and
// comparisons against values computed in double.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/session.h"
#include "graph/scope.h"

namespace tact {
namespace test {

inline std::unique_ptr<Session> NewSession(const Scope& s) {
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  auto def = s.ToGraphDef();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  Status st = (*session)->Extend(*def);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return std::move(session).value();
}

// Fetches one tensor; fails the test (returning an empty tensor) on error.
inline Tensor Fetch(Session* session, const std::string& name,
                    const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  auto out = session->Run(feeds, {name}, {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = static_cast<double>(t.data<T>()[i]);
  return v;
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                       double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
  }
}

}  // namespace test
}  // namespace tact
