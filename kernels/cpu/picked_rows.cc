#include "kernels/cpu/picked_rows.h"

#include "kernels/cpu/array_util.h"

namespace tact {

StatusOr<std::vector<int64_t>> PickedRows(const Tensor& indices, const Tensor& updates,
                                          const char* what, const TensorShape& var_shape,
                                          const std::string& var) {
  if (var_shape.dims() == 0) {
    return errors::InvalidArgument("variable '", var, "' is a scalar; rows can only be picked ",
                                   "from a tensor of rank 1 or more");
  }
  TensorShape want = indices.shape();
  for (int d = 1; d < var_shape.dims(); ++d) want.AddDim(var_shape.dim_size(d));
  if (updates.shape() != want) {
    return errors::InvalidArgument(what, " has shape ", updates.shape().DebugString(),
                                   " but the rows of variable '", var, "' (shape ",
                                   var_shape.DebugString(), ") picked by indices of shape ",
                                   indices.shape().DebugString(), " have shape ",
                                   want.DebugString());
  }
  std::vector<int64_t> rows = ReadIndices(indices);
  const int64_t limit = var_shape.dim_size(0);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < 0 || rows[i] >= limit) {
      return errors::InvalidArgument("indices", PositionString(i, indices.shape()), " = ", rows[i],
                                     " is not in [0, ", limit, ") (the rows of variable '", var,
                                     "')");
    }
  }
  return rows;
}

}  // namespace tact
