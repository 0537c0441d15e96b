// GatherNd, ScatterNd, Where and SelectV2 against element-by-element
// references, over ranks, coordinate counts and dtypes, and every bad input
// named. (tests/gradients/indexing_numpy_test.cc checks them against NumPy.)
#include <gtest/gtest.h>

#include <random>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

std::vector<int64_t> RandomCoordinates(const std::vector<int64_t>& dims, int k, int64_t vectors,
                                       std::mt19937* gen) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < vectors; ++i) {
    for (int d = 0; d < k; ++d) v.push_back((*gen)() % dims[d]);
  }
  return v;
}

// out[i..., j...] = params[indices[i..., :], j...].
Tensor GatherNdRef(const Tensor& params, const std::vector<int64_t>& coords,
                   const TensorShape& indices_shape) {
  const int k = static_cast<int>(indices_shape.dim_size(indices_shape.dims() - 1));
  std::vector<int64_t> dims(indices_shape.dim_sizes().begin(), indices_shape.dim_sizes().end() - 1);
  const int lead = static_cast<int>(dims.size());
  for (int d = k; d < params.dims(); ++d) dims.push_back(params.dim_size(d));
  return test::MapReference(params.dtype(), TensorShape(dims), {&params},
                            [&](const std::vector<int64_t>& idx) {
                              std::vector<int64_t> vec(idx.begin(), idx.begin() + lead);
                              const int64_t v = lead == 0 ? 0 : test::Ravel(vec, std::vector<int64_t>(
                                  dims.begin(), dims.begin() + lead));
                              std::vector<int64_t> at(coords.begin() + v * k,
                                                      coords.begin() + (v + 1) * k);
                              at.insert(at.end(), idx.begin() + lead, idx.end());
                              return std::make_pair(0, test::Ravel(at, params.shape().dim_sizes()));
                            });
}

TEST(GatherNdOpTest, EveryCoordinateCountOfSeveralRanks) {
  std::mt19937 gen(3);
  const TensorShape params_shapes[] = {{5}, {4, 3}, {3, 2, 4}};
  const std::vector<int64_t> leads[] = {{}, {6}, {2, 3}, {0}};
  uint32_t seed = 1;
  for (const TensorShape& ps : params_shapes) {
    for (int k = 0; k <= ps.dims(); ++k) {
      for (const std::vector<int64_t>& lead : leads) {
        for (DataType t : {DT_FLOAT, DT_STRING, DT_INT8, DT_COMPLEX128}) {
          SCOPED_TRACE(ps.DebugString() + " k " + std::to_string(k) + " " + DataTypeString(t));
          int64_t vectors = 1;
          for (int64_t d : lead) vectors *= d;
          std::vector<int64_t> ishape = lead;
          ishape.push_back(k);
          const std::vector<int64_t> coords = RandomCoordinates(ps.dim_sizes(), k, vectors, &gen);
          Tensor params = test::RandomAny(t, ps, seed++);
          Tensor indices = Ints(coords, seed % 2 ? DT_INT32 : DT_INT64, TensorShape(ishape));
          test::ExpectTensorEq(test::RunOne("GatherNd", {params, indices}),
                               GatherNdRef(params, coords, TensorShape(ishape)));
        }
      }
    }
  }
}

TEST(GatherNdOpTest, BadIndicesAreNamed) {
  Tensor params = test::Random<float>({4, 3}, 1);
  test::ExpectError(test::RunOp("GatherNd", {params, Ints({0, 1, 3, 3}, DT_INT32, {2, 2})}).status(),
                    Code::kInvalidArgument,
                    "indices[1,1] = 3 is not in [0, 3) (dimension 1 of params [4,3])");
  test::ExpectError(test::RunOp("GatherNd", {params, Ints({-1}, DT_INT64, {1, 1})}).status(),
                    Code::kInvalidArgument, "indices[0,0] = -1 is not in [0, 4)");
  test::ExpectError(test::RunOp("GatherNd", {params, Ints({0, 0, 0}, DT_INT32, {1, 3})}).status(),
                    Code::kInvalidArgument, "hold 3 coordinates, more than params [4,3] has");
  test::ExpectError(test::RunOp("GatherNd", {params, Ints({0}, DT_INT32, TensorShape())}).status(),
                    Code::kInvalidArgument, "indices must be at least a vector");
}

// The sum of the updates each output element receives, in double.
std::vector<double> ScatterNdRef(const std::vector<int64_t>& coords, int k, const Tensor& updates,
                                 const std::vector<int64_t>& shape) {
  std::vector<double> out(TensorShape(shape).num_elements(), 0.0);
  int64_t inner = 1;
  for (size_t d = k; d < shape.size(); ++d) inner *= shape[d];
  const std::vector<double> u = test::ToDoubles(updates);
  const int64_t vectors = inner == 0 ? 0 : static_cast<int64_t>(u.size()) / inner;
  for (int64_t v = 0; v < vectors; ++v) {
    int64_t row = 0;
    for (int d = 0; d < k; ++d) row = row * shape[d] + coords[v * k + d];
    for (int64_t j = 0; j < inner; ++j) out[row * inner + j] += u[v * inner + j];
  }
  return out;
}

TEST(ScatterNdOpTest, DuplicatesAddUpInEveryNumberType) {
  std::mt19937 gen(5);
  const std::vector<int64_t> shape = {4, 3, 2};
  for (int k = 0; k <= 3; ++k) {
    for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT32, DT_INT64}) {
      SCOPED_TRACE("k " + std::to_string(k) + " " + DataTypeString(t));
      // 9 vectors into at most 24 places: duplicates are likely for k = 1.
      const std::vector<int64_t> coords = RandomCoordinates(shape, k, 9, &gen);
      std::vector<int64_t> ushape = {9};
      ushape.insert(ushape.end(), shape.begin() + k, shape.end());
      Tensor updates = test::RandomAny(t, TensorShape(ushape), gen());
      Tensor got = test::RunOne("ScatterNd", {Ints(coords, DT_INT64, TensorShape({9, k})), updates,
                                              Ints(shape, DT_INT64)});
      ASSERT_EQ(got.dtype(), t);
      // Sums in the type's own precision (half in float, rounded once per
      // element); integers exactly.
      const double tol = t == DT_HALF ? 2e-3 : t == DT_FLOAT ? 1e-6 : t == DT_DOUBLE ? 1e-14 : 0;
      test::ExpectClose(got, TensorShape(shape), ScatterNdRef(coords, k, updates, shape), tol, tol);
    }
  }
}

TEST(ScatterNdOpTest, BadInputsAreNamed) {
  Tensor updates = test::Random<float>({2}, 1);
  test::ExpectError(
      test::RunOp("ScatterNd", {Ints({0, 5}, DT_INT32, {2, 1}), updates, Ints({5})}).status(),
      Code::kInvalidArgument, "indices[1,0] = 5 is not in [0, 5) (dimension 0 of shape [5])");
  test::ExpectError(
      test::RunOp("ScatterNd", {Ints({0, 1}, DT_INT32, {2, 1}), updates, Ints({5, 2})}).status(),
      Code::kInvalidArgument,
      "updates have shape [2] but indices [2,1] into shape [5,2] pick slices of shape [2,2]");
  test::ExpectError(
      test::RunOp("ScatterNd", {Ints({0, 1}, DT_INT32, {2, 1}), updates, Ints({5, -2})}).status(),
      Code::kInvalidArgument, "-2");
  test::ExpectError(test::RunOp("ScatterNd", {Ints({0, 1}, DT_INT32, {2, 1}), updates,
                                              Ints({5}, DT_INT32, TensorShape())})
                        .status(),
                    Code::kInvalidArgument, "shape must be a vector");
}

TEST(ScatterNdOpTest, GatherNdReadsBackWhatDistinctIndicesScattered) {
  Tensor indices = Ints({2, 1, 0, 0, 3, 2}, DT_INT32, {3, 2});
  Tensor updates = test::Random<float>({3}, 7);
  Tensor scattered = test::RunOne("ScatterNd", {indices, updates, Ints({4, 3})});
  test::ExpectTensorEq(test::RunOne("GatherNd", {scattered, indices}), updates);
  EXPECT_EQ(test::ToDoubles(scattered)[0 * 3 + 1], 0.0);  // untouched: zero
}

TEST(WhereOpTest, CoordinatesOfNonzeroElementsInRowMajorOrder) {
  Tensor b(DT_BOOL, TensorShape({2, 3}));
  const bool bits[] = {false, true, false, true, true, false};
  for (int i = 0; i < 6; ++i) b.data<bool>()[i] = bits[i];
  test::ExpectTensorEq(test::RunOne("Where", {b}), Ints({0, 1, 1, 0, 1, 1}, DT_INT64, {3, 2}));
  // NaN is nonzero and -0.0 is zero, as x != 0 says.
  Tensor f = Tensor::FromVector<float>({0.0f, -0.0f, std::nanf(""), 2.5f});
  test::ExpectTensorEq(test::RunOne("Where", {f}), Ints({2, 3}, DT_INT64, {2, 1}));
  Tensor none = Tensor::FromVector<int32_t>({0, 0, 0}, {1, 3, 1});
  test::ExpectTensorEq(test::RunOne("Where", {none}), Ints({}, DT_INT64, {0, 3}));
  test::ExpectTensorEq(test::RunOne("Where", {Tensor::Scalar<double>(4.0)}),
                       Ints({}, DT_INT64, {1, 0}));
}

TEST(SelectV2OpTest, ThreeShapesBroadcastTogether) {
  struct Case {
    TensorShape c, t, e;
  };
  const Case cases[] = {{{2, 3}, {2, 3}, {2, 3}}, {{2, 1}, {2, 3}, {}},  {{3}, {2, 1}, {1, 3}},
                        {{}, {4}, {4}},           {{1, 2, 1}, {3, 1, 4}, {2, 1}}};
  uint32_t seed = 11;
  for (const Case& k : cases) {
    for (DataType dt : {DT_FLOAT, DT_STRING}) {
      SCOPED_TRACE(k.c.DebugString() + k.t.DebugString() + k.e.DebugString());
      Tensor c = test::RandomAny(DT_BOOL, k.c, seed++);
      Tensor t = test::RandomAny(dt, k.t, seed++), e = test::RandomAny(dt, k.e, seed++);
      std::vector<int64_t> dims;
      const int rank = std::max({k.c.dims(), k.t.dims(), k.e.dims()});
      for (int d = 0; d < rank; ++d) {
        int64_t n = 1;
        for (const TensorShape* s : {&k.c, &k.t, &k.e}) {
          const int at = d - (rank - s->dims());
          if (at >= 0) n = std::max(n, s->dim_size(at));
        }
        dims.push_back(n);
      }
      // An input's element for output index idx: right-aligned, 0 where it has size 1.
      auto at = [&](const TensorShape& s, const std::vector<int64_t>& idx) {
        std::vector<int64_t> i(idx.end() - s.dims(), idx.end());
        for (int d = 0; d < s.dims(); ++d) i[d] = s.dim_size(d) == 1 ? 0 : i[d];
        return test::Ravel(i, s.dim_sizes());
      };
      Tensor want = test::MapReference(dt, TensorShape(dims), {&t, &e},
                                       [&](const std::vector<int64_t>& idx) {
                                         const bool pick = c.data<bool>()[at(k.c, idx)];
                                         return pick ? std::make_pair(0, at(k.t, idx))
                                                     : std::make_pair(1, at(k.e, idx));
                                       });
      test::ExpectTensorEq(test::RunOne("SelectV2", {c, t, e}), want);
    }
  }
}

TEST(SelectV2OpTest, ShapesThatDoNotBroadcastAreNamed) {
  Tensor c = test::RandomAny(DT_BOOL, {2}, 1);
  test::ExpectError(test::RunOp("SelectV2", {c, test::Random<float>({3}, 2),
                                             test::Random<float>({3}, 3)})
                        .status(),
                    Code::kInvalidArgument,
                    "condition [2], t [3] and e [3] do not broadcast together");
}

}  // namespace
}  // namespace tact
