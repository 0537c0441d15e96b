// ScatterAdd, ScatterSub and ScatterUpdate: rows of a Variable updated in
// place, under the Var's mutex and copy on write as the Apply* kernels
// (kernels/locked_slots.h), every index checked before any row changes
// (kernels/cpu/picked_rows.h).
#include <algorithm>

#include "kernels/cpu/array_util.h"
#include "kernels/cpu/picked_rows.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Locks ref, checks indices and updates against it, and gives `update` the
// variable's data, the picked rows and the number of elements in a row.
template <typename Update>
void ScatterRows(OpKernelContext* ctx, Update&& update) {
  const Tensor& indices = ctx->input(1);
  const Tensor& updates = ctx->input(2);
  std::vector<int64_t> rows;
  int64_t row_size = 0;
  LockedSlots<1> slots;
  OP_REQUIRES_OK(ctx, AcquireRows(ctx, &slots, {0}, {"ref"}, indices, updates, "updates", &rows,
                                  &row_size));
  update(slots.data(0), rows, row_size);
  ctx->set_output(0, ctx->input(0));
}

template <typename T, bool kSubtract>
class ScatterAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const T* src = ctx->input(2).data<T>();
    ScatterRows(ctx, [&](void* data, const std::vector<int64_t>& rows, int64_t row_size) {
      T* dst = static_cast<T*>(data);
      ForEachPickedElement(ctx, rows, row_size, 2, [=](int64_t v, int64_t u) {
        dst[v] = kSubtract ? WrappingSub(dst[v], src[u]) : WrappingAdd(dst[v], src[u]);
      });
    });
  }
};

class ScatterUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& updates = ctx->input(2);
    ScatterRows(ctx, [&](void* data, const std::vector<int64_t>& rows, int64_t row_size) {
      const bool moved = VisitByElementSize(updates.dtype(), [&]<typename U>() {
        const U* src = static_cast<const U*>(updates.raw_data());
        U* dst = static_cast<U*>(data);
        // In the order of positions, so that a row picked twice keeps the last.
        for (size_t r = 0; r < rows.size(); ++r) {
          std::copy(src + r * row_size, src + (r + 1) * row_size, dst + rows[r] * row_size);
        }
      });
      if (!moved) ctx->CtxFailure(UnsupportedDtype(updates.dtype()));
    });
  }
};

#define TACT_REGISTER_SCATTER(T, ...)                                                    \
  REGISTER_KERNEL_BUILDER(Name("ScatterAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ScatterAddOp<T, false>);                                      \
  REGISTER_KERNEL_BUILDER(Name("ScatterSub").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ScatterAddOp<T, true>);
TACT_CALL_FLOATING(TACT_REGISTER_SCATTER)
TACT_CALL_INT(TACT_REGISTER_SCATTER)
TACT_CALL_COMPLEX(TACT_REGISTER_SCATTER)
#undef TACT_REGISTER_SCATTER
REGISTER_KERNEL_BUILDER(Name("ScatterUpdate").Device(DEVICE_CPU), ScatterUpdateOp);

}  // namespace
}  // namespace tact
