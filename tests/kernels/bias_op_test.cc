// BiasAdd and BiasAddGrad against plain loops in double.
#include <gtest/gtest.h>

#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace tact {
namespace {

template <typename T>
void CheckBias(const TensorShape& shape, double tol) {
  SCOPED_TRACE(shape.DebugString());
  const int64_t c = shape.dim_size(shape.dims() - 1);
  Tensor v = test::Random<T>(shape, 41);
  Tensor b = test::Random<T>({c}, 42);
  std::vector<double> vd = test::ToDoubles(v), bd = test::ToDoubles(b);
  std::vector<double> add(vd.size()), grad(c, 0.0);
  for (size_t i = 0; i < vd.size(); ++i) {
    add[i] = vd[i] + bd[i % c];
    grad[i % c] += vd[i];
  }
  auto out = test::RunOp("BiasAdd", {v, b});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectClose((*out)[0], shape, add, tol, tol);
  auto g = test::RunOp("BiasAddGrad", {v});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  test::ExpectClose((*g)[0], {c}, grad, tol, tol);
}

TEST(BiasAddTest, MatchesLoops) {
  for (const TensorShape& s : std::vector<TensorShape>{
           {5}, {3, 4}, {2, 5, 5, 7}, {100, 32}, {0, 3}, {4, 0}, {1, 1, 1, 1}, {7000, 10}}) {
    CheckBias<float>(s, 1e-4);
    CheckBias<double>(s, 1e-12);
  }
}

TEST(BiasAddTest, Errors) {
  auto mismatch = test::RunOp("BiasAdd", {test::Random<float>({2, 3}, 1), test::Random<float>({4}, 2)});
  test::ExpectError(mismatch.status(), Code::kInvalidArgument, "got value [2,3] and bias [4]");
  auto matrix_bias = test::RunOp("BiasAdd", {test::Random<float>({2, 3}, 1),
                                             test::Random<float>({1, 3}, 2)});
  test::ExpectError(matrix_bias.status(), Code::kInvalidArgument, "bias [1,3]");
  auto scalar = test::RunOp("BiasAddGrad", {Tensor::Scalar<float>(1)});
  test::ExpectError(scalar.status(), Code::kInvalidArgument, "at least rank 1, got shape []");
  auto nchw = test::RunOp("BiasAdd", {test::Random<float>({2, 3}, 1), test::Random<float>({3}, 2)},
                          {{"data_format", AttrValue::String("NCHW")}});
  test::ExpectError(nchw.status(), Code::kInvalidArgument, "data_format 'NCHW' is not supported");
}

}  // namespace
}  // namespace tact
