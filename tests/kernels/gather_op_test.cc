#include <gtest/gtest.h>

#include "tests/kernels/array_test_util.h"

namespace tact {
namespace {

using test::Ints;

// out[i..., j...] = params[indices[i...], j...].
Tensor GatherRef(const Tensor& params, const Tensor& indices) {
  std::vector<int64_t> dims = indices.shape().dim_sizes();
  for (int d = 1; d < params.dims(); ++d) dims.push_back(params.dim_size(d));
  const int ir = indices.dims();
  return test::MapReference(params.dtype(), TensorShape(dims), {&params},
                            [&](const std::vector<int64_t>& idx) {
                              std::vector<int64_t> iidx(idx.begin(), idx.begin() + ir);
                              const int64_t flat = test::Ravel(iidx, indices.shape().dim_sizes());
                              std::vector<int64_t> pidx = {
                                  indices.dtype() == DT_INT32 ? indices.data<int32_t>()[flat]
                                                              : indices.data<int64_t>()[flat]};
                              pidx.insert(pidx.end(), idx.begin() + ir, idx.end());
                              return std::make_pair(0, test::Ravel(pidx, params.shape().dim_sizes()));
                            });
}

TEST(GatherOpTest, RandomIndicesOfSeveralRanks) {
  std::mt19937 gen(2);
  const TensorShape params_shapes[] = {{5}, {5, 3}, {4, 2, 3}, {6, 0}};
  const TensorShape index_shapes[] = {{}, {3}, {2, 3}, {0}, {7}};
  uint32_t seed = 1;
  for (const TensorShape& ps : params_shapes) {
    for (const TensorShape& is : index_shapes) {
      for (DataType t : {DT_FLOAT, DT_STRING, DT_INT32}) {
        Tensor params = test::RandomAny(t, ps, seed++);
        std::vector<int64_t> idx(is.num_elements());
        for (int64_t& v : idx) v = gen() % ps.dim_size(0);
        Tensor indices = Ints(idx, seed % 2 ? DT_INT32 : DT_INT64, is);
        test::ExpectTensorEq(test::RunOne("Gather", {params, indices}), GatherRef(params, indices));
      }
    }
  }
}

TEST(GatherOpTest, LargeGatherRunsInParallel) {
  Tensor params = test::Random<float>({1000, 64}, 3);
  std::vector<int64_t> idx(5000);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = (i * 7919) % 1000;
  Tensor indices = Ints(idx, DT_INT64);
  test::ExpectTensorEq(test::RunOne("Gather", {params, indices}), GatherRef(params, indices));
}

TEST(GatherOpTest, IndicesOutOfRange) {
  Tensor params = test::Random<float>({5, 2}, 1);
  test::ExpectError(
      test::RunOp("Gather", {params, Ints({0, 1, 2, 3, 7, 4}, DT_INT32, {2, 3})}).status(),
      Code::kInvalidArgument, "indices[1,1] = 7 is not in [0, 5)");
  test::ExpectError(test::RunOp("Gather", {params, Ints({-1}, DT_INT64)}).status(),
                    Code::kInvalidArgument, "indices[0] = -1 is not in [0, 5)");
  // validate_indices=false does not turn the check off: it would read out of bounds.
  test::ExpectError(test::RunOp("Gather", {params, Ints({5}, DT_INT64, {})},
                                {{"validate_indices", AttrValue::Bool(false)}}).status(),
                    Code::kInvalidArgument, "indices[] = 5 is not in [0, 5)");
  test::ExpectError(test::RunOp("Gather", {test::Random<float>({}, 1), Ints({0})}).status(),
                    Code::kInvalidArgument, "params must be at least a vector, got shape []");
  test::ExpectError(test::RunOp("Gather", {params, test::Random<float>({2}, 1)}).status(),
                    Code::kInvalidArgument, "attr 'Tindices' = float is not in the allowed set");
}

// GatherV2: out[o..., i..., j...] = params[o..., indices[i...], j...],
// with `axis` dimensions of o.
Tensor GatherV2Ref(const Tensor& params, const Tensor& indices, int axis) {
  std::vector<int64_t> dims(params.shape().dim_sizes().begin(),
                            params.shape().dim_sizes().begin() + axis);
  for (int64_t d : indices.shape().dim_sizes()) dims.push_back(d);
  for (int d = axis + 1; d < params.dims(); ++d) dims.push_back(params.dim_size(d));
  const int ir = indices.dims();
  return test::MapReference(params.dtype(), TensorShape(dims), {&params},
                            [&](const std::vector<int64_t>& idx) {
                              std::vector<int64_t> iidx(idx.begin() + axis, idx.begin() + axis + ir);
                              const int64_t flat = test::Ravel(iidx, indices.shape().dim_sizes());
                              std::vector<int64_t> pidx(idx.begin(), idx.begin() + axis);
                              pidx.push_back(indices.dtype() == DT_INT32 ? indices.data<int32_t>()[flat]
                                                                         : indices.data<int64_t>()[flat]);
                              pidx.insert(pidx.end(), idx.begin() + axis + ir, idx.end());
                              return std::make_pair(0, test::Ravel(pidx, params.shape().dim_sizes()));
                            });
}

TEST(GatherOpTest, GatherV2AlongEveryAxis) {
  std::mt19937 gen(3);
  const TensorShape params_shapes[] = {{5}, {5, 3}, {4, 2, 3}, {2, 0, 3}};
  const TensorShape index_shapes[] = {{}, {3}, {2, 3}, {0}};
  uint32_t seed = 1;
  for (const TensorShape& ps : params_shapes) {
    for (int axis = -ps.dims(); axis < ps.dims(); ++axis) {
      const int a = axis < 0 ? axis + ps.dims() : axis;
      for (const TensorShape& is : index_shapes) {
        if (ps.dim_size(a) == 0 && is.num_elements() > 0) continue;  // nothing to pick from
        for (DataType t : {DT_FLOAT, DT_STRING, DT_INT64}) {
          Tensor params = test::RandomAny(t, ps, seed++);
          std::vector<int64_t> idx(is.num_elements());
          for (int64_t& v : idx) v = gen() % ps.dim_size(a);
          Tensor indices = Ints(idx, seed % 2 ? DT_INT32 : DT_INT64, is);
          Tensor axis_t = Ints({axis}, seed % 3 ? DT_INT32 : DT_INT64, {});
          SCOPED_TRACE(ps.DebugString() + " axis " + std::to_string(axis) + " " + is.DebugString());
          test::ExpectTensorEq(test::RunOne("GatherV2", {params, indices, axis_t}),
                               GatherV2Ref(params, indices, a));
        }
      }
    }
  }
}

TEST(GatherOpTest, GatherV2RefusesWhatItCannotDo) {
  Tensor params = test::Random<float>({5, 2}, 1);
  test::ExpectError(test::RunOp("GatherV2", {params, Ints({0, 2}, DT_INT32), Ints({1}, DT_INT32, {})})
                        .status(),
                    Code::kInvalidArgument, "indices[1] = 2 is not in [0, 2)");
  test::ExpectError(test::RunOp("GatherV2", {params, Ints({0}, DT_INT32), Ints({2}, DT_INT32, {})})
                        .status(),
                    Code::kInvalidArgument, "axis");
  test::ExpectError(test::RunOp("GatherV2", {params, Ints({0}, DT_INT32), Ints({0, 1}, DT_INT32)})
                        .status(),
                    Code::kInvalidArgument, "axis must be a scalar, got shape [2]");
  test::ExpectError(test::RunOp("GatherV2", {params, Ints({0}, DT_INT32), Ints({0}, DT_INT32, {})},
                                {{"batch_dims", AttrValue::Int(1)}})
                        .status(),
                    Code::kUnimplemented, "batch_dims 1: only batch_dims 0 is supported");
}

}  // namespace
}  // namespace tact
