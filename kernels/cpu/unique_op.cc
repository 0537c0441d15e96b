// Unique: the distinct elements of a vector in the order they first appear,
// and each element's position among them. Elements compare by value, as
// TensorFlow's: 0.0 and -0.0 are one element, and every NaN is its own
// (NaN != NaN). One pass with a hash table; it runs on one thread, since
// the order of first appearance is sequential by nature and the inputs it
// exists for (the ids of a batch) are short.
#include <complex>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>

#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// What an element is compared and hashed as: half and bfloat16 as float.
template <typename T>
using Key = std::conditional_t<kIs16BitFloat<T>, float, T>;

struct KeyHash {
  template <typename K>
  size_t operator()(const K& k) const {
    if constexpr (kIsComplex<K>) {
      return (*this)(k.real()) * 31 + (*this)(k.imag());
    } else if constexpr (std::is_floating_point_v<K>) {
      return k == 0 ? 0 : std::hash<K>()(k);  // -0.0 == 0.0 must hash alike
    } else {
      return std::hash<K>()(k);
    }
  }
};

template <typename T, typename Index>
void ComputeUnique(OpKernelContext* ctx, const Tensor& x) {
  const int64_t n = x.NumElements();
  const T* in = x.data<T>();
  std::unordered_map<Key<T>, Index, KeyHash> position;
  position.reserve(static_cast<size_t>(n));
  std::vector<int64_t> first;  // where each distinct element first appears
  Tensor* idx;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx));
  Index* out_idx = idx->data<Index>();
  for (int64_t i = 0; i < n; ++i) {
    auto [it, fresh] = position.emplace(Key<T>(in[i]), static_cast<Index>(first.size()));
    if (fresh) first.push_back(i);
    out_idx[i] = it->second;
  }
  Tensor* y;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({static_cast<int64_t>(first.size())}), &y));
  T* out = y->data<T>();
  for (size_t j = 0; j < first.size(); ++j) out[j] = in[first[j]];
}

class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument("x must be a vector, got shape ", x.shape().DebugString()));
    const bool wide = output_type(1) == DT_INT64;
    // An int32 idx must be able to number every element.
    OP_REQUIRES(ctx, wide || x.NumElements() <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("x has ", x.NumElements(),
                                        " elements, too many for an int32 idx: use out_idx int64"));
    const DataType dt = x.dtype();
#define TACT_UNIQUE_CASE(T, ...)                                                    \
  if (dt == DataTypeToEnum<T>::value) {                                             \
    return wide ? ComputeUnique<T, int64_t>(ctx, x) : ComputeUnique<T, int32_t>(ctx, x); \
  }
    TACT_CALL_ALL(TACT_UNIQUE_CASE)
#undef TACT_UNIQUE_CASE
    ctx->CtxFailure(errors::InvalidArgument("Unique has no kernel for ", DataTypeString(dt)));
  }
};

REGISTER_KERNEL_BUILDER(Name("Unique").Device(DEVICE_CPU), UniqueOp);

}  // namespace
}  // namespace tact
