// The Einsum kernel in every type it is registered for, against the double
// kernel (which einsum_torch_test.cc checks against PyTorch) on small
// integers, which every type holds exactly, so that the comparison is
// exact; each of the kernel's paths (a transposition, a sum, a product read
// in place or transposed, a product copied into the output's order, a
// broadcast "..."); and bad input, named.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

AttrMap Equation(const std::string& eq) { return {{"equation", AttrValue::String(eq)}}; }

// Integers in [-4, 4] as doubles.
Tensor SmallIntegers(const TensorShape& shape, uint32_t seed) {
  Tensor t = test::Random<double>(shape, seed, -4, 4);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = std::round(t.data<double>()[i]);
  return t;
}

Tensor CastTo(const Tensor& t, DataType dt) {
  return test::RunOne("Cast", {t}, {{"DstT", AttrValue::Type(dt)}});
}

struct Case {
  std::string equation;
  std::vector<TensorShape> shapes;
};

TEST(EinsumOpTest, EveryTypeMatchesDoubleExactlyOnEveryPath) {
  const std::vector<Case> cases = {
      {"ij->ji", {{3, 4}}},                             // a transposition
      {"ijk->kj", {{2, 3, 4}}},                         // a sum
      {"ij,jk->ik", {{3, 4}, {4, 5}}},                  // in place
      {"bqd,bkd->bqk", {{2, 3, 4}, {2, 5, 4}}},         // the second transposed
      {"ji,kj->ki", {{4, 3}, {5, 4}}},                  // copied into the output's order
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}},  // broadcast "..."
      {"ijk,jl->il", {{2, 3, 4}, {3, 5}}},              // summed by one operand
  };
  for (DataType dt : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeString(dt));
    for (size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(cases[c].equation);
      std::vector<Tensor> wide, narrow;
      for (size_t i = 0; i < cases[c].shapes.size(); ++i) {
        wide.push_back(SmallIntegers(cases[c].shapes[i], 5 + c * 3 + i));
        narrow.push_back(CastTo(wide.back(), dt));
      }
      Tensor want = test::RunOne("Einsum", wide, Equation(cases[c].equation));
      Tensor got = test::RunOne("Einsum", narrow, Equation(cases[c].equation));
      ASSERT_EQ(got.dtype(), dt);
      test::ExpectClose(got, want.shape(), test::ToDoubles(want), 0, 0);
    }
  }
}

// Complex numbers whose real and imaginary parts are both random.
Tensor RandomComplex(const TensorShape& shape, uint32_t seed) {
  Tensor re = test::Random<double>(shape, seed), im = test::Random<double>(shape, seed + 100);
  Tensor z(DT_COMPLEX128, shape);
  for (int64_t i = 0; i < z.NumElements(); ++i) {
    z.data<complex128>()[i] = complex128(re.data<double>()[i], im.data<double>()[i]);
  }
  return z;
}

TEST(EinsumOpTest, Complex64MatchesComplex128) {
  Tensor a = RandomComplex({2, 3, 4}, 1), b = RandomComplex({2, 5, 4}, 2);
  Tensor want = test::RunOne("Einsum", {a, b}, Equation("bqd,bkd->bkq"));
  Tensor got = test::RunOne(
      "Einsum", {CastTo(a, DT_COMPLEX64), CastTo(b, DT_COMPLEX64)}, Equation("bqd,bkd->bkq"));
  ASSERT_EQ(got.dtype(), DT_COMPLEX64);
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const complex128 g = got.data<complex64>()[i], w = want.data<complex128>()[i];
    EXPECT_NEAR(g.real(), w.real(), 1e-5) << i;
    EXPECT_NEAR(g.imag(), w.imag(), 1e-5) << i;
  }
}

// A product large enough to be spread over the device's threads, against
// MatMul (the kernel the MatMul figures measure).
TEST(EinsumOpTest, ALargeProductMatchesMatMul) {
  Tensor a = test::Random<float>({300, 200}, 3), b = test::Random<float>({400, 200}, 4);
  Tensor want = test::RunOne("MatMul", {a, b}, {{"transpose_b", AttrValue::Bool(true)}});
  test::ExpectClose(test::RunOne("Einsum", {a, b}, Equation("ik,jk->ij")), want.shape(),
                    test::ToDoubles(want), 1e-5, 1e-5);
}

TEST(EinsumOpTest, BadInputIsNamed) {
  const Tensor m34 = test::Random<float>({3, 4}, 1), m45 = test::Random<float>({4, 5}, 2);
  test::ExpectError(test::RunOp("Einsum", {m34, m34}, Equation("ij,jk->ik")).status(),
                    Code::kInvalidArgument,
                    "Einsum: 'j' has size 4 in operand 0 and 3 in operand 1 (shapes [3,4] and [3,4])");
  test::ExpectError(test::RunOp("Einsum", {m34, m45}, Equation("ijk,jk->ik")).status(),
                    Code::kInvalidArgument,
                    "Einsum: operand 0 has shape [3,4] but subscript 'ijk' needs rank 3");
  test::ExpectError(test::RunOp("Einsum", {m34}, Equation("ii->i")).status(),
                    Code::kInvalidArgument,
                    "Einsum equation 'ii->i': operand 0 has 'i' twice (diagonals are not supported)");
  test::ExpectError(test::RunOp("Einsum", {m34, m45}, Equation("ij,jk->iz")).status(),
                    Code::kInvalidArgument, "the output's 'z' is in no operand");
  test::ExpectError(test::RunOp("Einsum", {m34, m45}, Equation("ij->ij")).status(),
                    Code::kInvalidArgument, "has 1 operand subscripts for 2 operands");
  test::ExpectError(test::RunOp("Einsum", {m34}, Equation("i1->i")).status(),
                    Code::kInvalidArgument, "'1', which is neither a letter nor part of '...'");
  test::ExpectError(test::RunOp("Einsum", {test::Random<float>({2, 3, 4}, 3),
                                           test::Random<float>({5, 4, 2}, 4)},
                                Equation("...ij,...jk->...ik")).status(),
                    Code::kInvalidArgument, "the dimensions of '...' do not broadcast");
  test::ExpectError(test::RunOp("Einsum", {m34, m34, m34}, Equation("ij,ij,ij->i")).status(),
                    Code::kInvalidArgument, "takes one or two operands, got 3");
}

}  // namespace
}  // namespace tact
