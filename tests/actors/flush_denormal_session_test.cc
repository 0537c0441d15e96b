// Denormals in a session's kernels, as TensorFlow's denormal_test checks
// them: a denormal result is 0 whether the kernel ran on the caller's or a
// CAF thread (a scalar) or was split over the device's pool (2^20
// elements), in a graph without and with control flow (the two executors),
// and the caller's own arithmetic afterwards still has its denormals.
#include <gtest/gtest.h>

#include <limits>

#include "actors/session.h"
#include "graph/ops/all_ops.h"

namespace tact {
namespace {

template <typename T>
T TenthOfTiny() {
  volatile T tiny = std::numeric_limits<T>::min();
  volatile T tenth = T(0.1);
  return tiny * tenth;
}

template <typename T>
void ExpectFlushed(bool with_control_flow) {
  Scope s = Scope::NewRootScope();
  auto x = Placeholder(s.WithOpName("x"), DataTypeToEnum<T>::value);
  Output in = x;
  if (with_control_flow) {
    in = Switch(s.WithOpName("sw"), x, Const(s, Tensor::Scalar<bool>(true))).output_true;
  }
  Mul(s.WithOpName("y"), in, Const(s, Tensor::Scalar<T>(T(0.1))));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto session = Session::Create();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE((*session)->Extend(*s.ToGraphDef()).ok());
  for (int64_t n : {int64_t{1}, int64_t{1} << 20}) {
    Tensor tiny(DataTypeToEnum<T>::value, TensorShape({n}));
    T* p = tiny.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = std::numeric_limits<T>::min();
    auto out = (*session)->Run({{"x", tiny}}, {"y"}, {});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const T* y = (*out)[0].data<T>();
    int64_t not_zero = 0;
    for (int64_t i = 0; i < n; ++i) not_zero += y[i] != T(0);
    EXPECT_EQ(not_zero, 0) << n << " elements, control flow " << with_control_flow;
  }
  EXPECT_GT(TenthOfTiny<T>(), T(0)) << "the session changed the caller's floating-point mode";
}

#if defined(__SSE__)  // elsewhere tact leaves the mode alone: devices/flush_denormal.h
TEST(FlushDenormalSessionTest, FloatKernelsFlushOnEveryThreadAndLeaveTheCallersModeAlone) {
  ExpectFlushed<float>(false);
  ExpectFlushed<float>(true);
}

TEST(FlushDenormalSessionTest, DoubleKernelsFlushOnEveryThreadAndLeaveTheCallersModeAlone) {
  ExpectFlushed<double>(false);
  ExpectFlushed<double>(true);
}
#endif

}  // namespace
}  // namespace tact
