#include <gtest/gtest.h>

#include <optional>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

TEST(SliceOpTest, RandomBlocks) {
  std::mt19937 gen(5);
  const TensorShape shapes[] = {{7}, {4, 5}, {3, 4, 5}, {2, 3, 2, 4}, {3, 0, 2}};
  uint32_t seed = 1;
  for (const TensorShape& s : shapes) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<int64_t> begin, size;
      for (int d = 0; d < s.dims(); ++d) {
        const int64_t dim = s.dim_size(d);
        begin.push_back(gen() % (dim + 1));
        const int64_t left = dim - begin.back();
        size.push_back(trial % 3 == 0 ? -1 : static_cast<int64_t>(gen() % (left + 1)));
      }
      for (DataType t : {DT_FLOAT, DT_STRING}) {
        Tensor x = test::RandomAny(t, s, seed++);
        std::vector<int64_t> out_dims;
        for (int d = 0; d < s.dims(); ++d) {
          out_dims.push_back(size[d] == -1 ? s.dim_size(d) - begin[d] : size[d]);
        }
        Tensor want = test::MapReference(t, TensorShape(out_dims), {&x},
                                         [&](std::vector<int64_t> idx) {
                                           for (size_t d = 0; d < idx.size(); ++d) idx[d] += begin[d];
                                           return std::make_pair(0, test::Ravel(idx, s.dim_sizes()));
                                         });
        DataType index_type = trial % 2 ? DT_INT64 : DT_INT32;
        test::ExpectTensorEq(
            test::RunOne("Slice", {x, Ints(begin, index_type), Ints(size, index_type)}), want);
      }
    }
  }
}

TEST(SliceOpTest, ScalarAndWholeTensor) {
  Tensor s = test::Random<float>({}, 1);
  test::ExpectTensorEq(test::RunOne("Slice", {s, Ints({}), Ints({})}), s);
  Tensor m = test::Random<int32_t>({3, 2}, 2, -9, 9);
  test::ExpectTensorEq(test::RunOne("Slice", {m, Ints({0, 0}), Ints({-1, -1})}), m);
}

TEST(SliceOpTest, BadBeginOrSize) {
  Tensor x = test::Random<float>({3, 4}, 1);
  auto run = [&](std::vector<int64_t> b, std::vector<int64_t> s) {
    return test::RunOp("Slice", {x, Ints(b), Ints(s)}).status();
  };
  test::ExpectError(run({0, 2}, {1, 3}), Code::kInvalidArgument,
                    "slice of dimension 1 is out of range: begin [0,2], size [1,3] for input of "
                    "shape [3,4]");
  test::ExpectError(run({4, 0}, {-1, 1}), Code::kInvalidArgument, "slice of dimension 0");
  test::ExpectError(run({-1, 0}, {1, 1}), Code::kInvalidArgument, "slice of dimension 0");
  test::ExpectError(run({0, 0}, {1, -2}), Code::kInvalidArgument, "slice of dimension 1");
  test::ExpectError(run({0}, {1}), Code::kInvalidArgument,
                    "begin must be a vector of 2 elements for input of shape [3,4], got shape [1]");
  test::ExpectError(run({0, 0}, {1, 1, 1}), Code::kInvalidArgument, "size must be a vector of 2");
  test::ExpectError(test::RunOp("Slice", {x, Ints({-(1LL << 62), 0}, DT_INT64),
                                          Ints({-1, 1}, DT_INT64)}).status(),
                    Code::kInvalidArgument, "slice of dimension 0");
}

// A Python slice start:stop:step on a dimension of `n`, written the way
// CPython's slice.indices() resolves it; the result lists the indices.
struct PySlice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  std::vector<int64_t> Indices(int64_t n) const {
    const int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
    auto fix = [&](std::optional<int64_t> v, int64_t dflt) {
      if (!v) return dflt;
      int64_t x = *v < 0 ? *v + n : *v;
      return x < lower ? lower : x > upper ? upper : x;
    };
    const int64_t a = fix(start, step > 0 ? lower : upper);
    const int64_t b = fix(stop, step > 0 ? upper : lower);
    std::vector<int64_t> out;
    for (int64_t i = a; step > 0 ? i < b : i > b; i += step) out.push_back(i);
    return out;
  }
};

// x[slices...] for one slice per dimension (no masks beyond begin/end).
Tensor PyRef(const Tensor& x, const std::vector<PySlice>& slices) {
  std::vector<std::vector<int64_t>> picks;
  std::vector<int64_t> dims;
  for (int d = 0; d < x.dims(); ++d) {
    picks.push_back(slices[d].Indices(x.dim_size(d)));
    dims.push_back(static_cast<int64_t>(picks.back().size()));
  }
  return test::MapReference(x.dtype(), TensorShape(dims), {&x}, [&](std::vector<int64_t> idx) {
    for (size_t d = 0; d < idx.size(); ++d) idx[d] = picks[d][idx[d]];
    return std::make_pair(0, test::Ravel(idx, x.shape().dim_sizes()));
  });
}

StatusOr<std::vector<Tensor>> RunStrided(const Tensor& x, std::vector<int64_t> b,
                                         std::vector<int64_t> e, std::vector<int64_t> s,
                                         int64_t begin_mask = 0, int64_t end_mask = 0,
                                         int64_t ellipsis = 0, int64_t new_axis = 0,
                                         int64_t shrink = 0) {
  return test::RunOp("StridedSlice", {x, Ints(b), Ints(e), Ints(s)},
                     {{"begin_mask", AttrValue::Int(begin_mask)},
                      {"end_mask", AttrValue::Int(end_mask)},
                      {"ellipsis_mask", AttrValue::Int(ellipsis)},
                      {"new_axis_mask", AttrValue::Int(new_axis)},
                      {"shrink_axis_mask", AttrValue::Int(shrink)}});
}

Tensor Strided(const Tensor& x, std::vector<int64_t> b, std::vector<int64_t> e,
               std::vector<int64_t> s, int64_t begin_mask = 0, int64_t end_mask = 0,
               int64_t ellipsis = 0, int64_t new_axis = 0, int64_t shrink = 0) {
  auto out = RunStrided(x, b, e, s, begin_mask, end_mask, ellipsis, new_axis, shrink);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

Tensor Reshaped(const Tensor& t, const TensorShape& s) { return t.Reshaped(s).value(); }

TEST(StridedSliceOpTest, RandomSpecsWithMasksMatchPythonSlices) {
  std::mt19937 gen(11);
  const TensorShape shapes[] = {{9}, {5, 6}, {4, 3, 5}, {0, 4}};
  uint32_t seed = 1;
  for (const TensorShape& shape : shapes) {
    for (int trial = 0; trial < 40; ++trial) {
      Tensor x = test::RandomAny(trial % 4 == 0 ? DT_STRING : DT_DOUBLE, shape, seed++);
      std::vector<PySlice> slices;
      std::vector<int64_t> b, e, s;
      int64_t begin_mask = 0, end_mask = 0;
      for (int d = 0; d < shape.dims(); ++d) {
        const int64_t n = shape.dim_size(d);
        PySlice p;
        // Indices from well below -n to well above n: they clamp.
        auto rnd = [&] { return static_cast<int64_t>(gen() % (2 * n + 5)) - n - 2; };
        p.step = static_cast<int64_t>(gen() % 7) - 3;
        if (p.step == 0) p.step = 2;
        b.push_back(rnd());
        e.push_back(rnd());
        s.push_back(p.step);
        if (gen() % 3 == 0) begin_mask |= 1 << d; else p.start = b.back();
        if (gen() % 3 == 0) end_mask |= 1 << d; else p.stop = e.back();
        slices.push_back(p);
      }
      test::ExpectTensorEq(Strided(x, b, e, s, begin_mask, end_mask), PyRef(x, slices));
    }
  }
}

TEST(StridedSliceOpTest, NegativeStridesReverse) {
  Tensor x = test::Random<float>({4, 5}, 3);
  // x[::-1, ::-2]
  test::ExpectTensorEq(Strided(x, {0, 0}, {0, 0}, {-1, -2}, 3, 3),
                       PyRef(x, {{{}, {}, -1}, {{}, {}, -2}}));
  // x[3:0:-1, -1:-6:-1]: the end -6 clamps to "before the first".
  test::ExpectTensorEq(Strided(x, {3, -1}, {0, -6}, {-1, -1}),
                       PyRef(x, {{3, 0, -1}, {-1, -6, -1}}));
}

TEST(StridedSliceOpTest, FewerEntriesThanDimsMeansFullTrailingDims) {
  Tensor x = test::Random<float>({4, 3, 2}, 4);
  test::ExpectTensorEq(Strided(x, {1}, {3}, {1}), PyRef(x, {{1, 3, 1}, {}, {}}));
}

TEST(StridedSliceOpTest, EllipsisMask) {
  Tensor x = test::Random<float>({3, 4, 5}, 5);
  // x[..., 1:4:2] == x[:, :, 1:4:2]
  test::ExpectTensorEq(Strided(x, {0, 1}, {0, 4}, {1, 2}, 0, 0, /*ellipsis=*/1),
                       PyRef(x, {{}, {}, {1, 4, 2}}));
  // x[1:, ...] == x[1:, :, :]; x[1:, ..., ::-1]
  test::ExpectTensorEq(Strided(x, {1, 0}, {0, 0}, {1, 1}, 0, 1, 2), PyRef(x, {{1, {}, 1}, {}, {}}));
  test::ExpectTensorEq(Strided(x, {1, 0, 0}, {0, 0, 0}, {1, 1, -1}, 4, 5, 2),
                       PyRef(x, {{1, {}, 1}, {}, {{}, {}, -1}}));
  // An ellipsis that stands for no dimension at all: x[0:1, 0:1, ..., 0:1].
  test::ExpectTensorEq(Strided(x, {0, 0, 0, 0}, {1, 1, 0, 1}, {1, 1, 1, 1}, 0, 0, 4),
                       PyRef(x, {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}}));
  test::ExpectError(RunStrided(x, {0, 0}, {1, 1}, {1, 1}, 0, 0, 3).status(),
                    Code::kInvalidArgument, "multiple ellipses");
}

TEST(StridedSliceOpTest, NewAxisMask) {
  Tensor x = test::Random<float>({3, 4}, 6);
  // x[newaxis, 1:3] has shape [1,2,4].
  Tensor y = Strided(x, {0, 1}, {0, 3}, {1, 1}, 0, 0, 0, /*new_axis=*/1);
  test::ExpectTensorEq(y, Reshaped(PyRef(x, {{1, 3, 1}, {}}), {1, 2, 4}));
  // x[:, newaxis, ::2, newaxis] has shape [3,1,2,1]; begin/end of new axes are ignored.
  y = Strided(x, {0, 7, 0, 9}, {0, 7, 0, 9}, {1, 1, 2, 1}, 5, 5, 0, 10);
  test::ExpectTensorEq(y, Reshaped(PyRef(x, {{}, {{}, {}, 2}}), {3, 1, 2, 1}));
  // x[..., newaxis] appends a dimension after the ellipsis.
  y = Strided(x, {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2);
  test::ExpectTensorEq(y, Reshaped(x, {3, 4, 1}));
  // A scalar gains a dimension: s[newaxis].
  Tensor s = test::Random<float>({}, 7);
  test::ExpectTensorEq(Strided(s, {0}, {0}, {1}, 0, 0, 0, 1), Reshaped(s, {1}));
}

TEST(StridedSliceOpTest, ShrinkAxisMask) {
  Tensor x = test::RandomAny(DT_STRING, {3, 4, 5}, 8);
  // x[1] has shape [4,5]; x[-1, :, 2] has shape [4].
  test::ExpectTensorEq(Strided(x, {1}, {2}, {1}, 0, 0, 0, 0, 1),
                       Reshaped(PyRef(x, {{1, 2, 1}, {}, {}}), {4, 5}));
  test::ExpectTensorEq(Strided(x, {-1, 0, 2}, {0, 0, 3}, {1, 1, 1}, 2, 2, 0, 0, 5),
                       Reshaped(PyRef(x, {{2, 3, 1}, {}, {2, 3, 1}}), {4}));
  // x[0, 0, 0] is a scalar; the end and the stride do not matter.
  test::ExpectTensorEq(Strided(x, {0, 0, -5}, {9, -9, 0}, {-1, 3, 1}, 0, 0, 0, 0, 7),
                       Reshaped(PyRef(x, {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}}), {}));
  test::ExpectError(RunStrided(x, {3}, {4}, {1}, 0, 0, 0, 0, 1).status(), Code::kInvalidArgument,
                    "index 3 is out of bounds for dimension 0 of size 3");
  test::ExpectError(RunStrided(x, {0, -5}, {1, 0}, {1, 1}, 0, 0, 0, 0, 2).status(),
                    Code::kInvalidArgument, "index -5 is out of bounds for dimension 1 of size 4");
}

TEST(StridedSliceOpTest, BeginAndEndMasksWithNegativeStride) {
  Tensor x = test::Random<int64_t>({6}, 9, -1000, 1000);
  // x[:2:-1] (begin masked) and x[3::-1] (end masked).
  test::ExpectTensorEq(Strided(x, {99}, {2}, {-1}, 1, 0), PyRef(x, {{{}, 2, -1}}));
  test::ExpectTensorEq(Strided(x, {3}, {99}, {-1}, 0, 1), PyRef(x, {{3, {}, -1}}));
  // An empty result: x[4:2] and x[2:4:-1].
  EXPECT_EQ(Strided(x, {4}, {2}, {1}).shape(), TensorShape({0}));
  EXPECT_EQ(Strided(x, {2}, {4}, {-1}).shape(), TensorShape({0}));
}

TEST(StridedSliceOpTest, Errors) {
  Tensor x = test::Random<float>({3, 4}, 1);
  test::ExpectError(RunStrided(x, {0, 0}, {1, 1}, {1, 0}).status(), Code::kInvalidArgument,
                    "stride of dimension 1 is 0");
  test::ExpectError(RunStrided(x, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}).status(),
                    Code::kInvalidArgument, "indexes more dimensions than the input's 2");
  test::ExpectError(test::RunOp("StridedSlice", {x, Ints({0}), Ints({0, 1}), Ints({1})}).status(),
                    Code::kInvalidArgument, "begin, end and strides must be vectors of one length");
}

}  // namespace
}  // namespace tact
