// Comparisons (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual) and
// logic (LogicalAnd, LogicalOr, LogicalNot), all broadcasting to bool, and
// Select (TensorFlow 1's: the condition is a scalar, x's shape, or a vector
// choosing whole rows).
#include <string>

#include "kernels/cpu/cwise_ops_common.h"

namespace tact {
namespace {

using cwise::BinaryOp;
using cwise::UnaryOp;

#define TACT_COMPARE_FUNCTOR(NAME, EXPR)                          \
  struct NAME {                                                   \
    static constexpr int64_t kCost = 1;                           \
    template <typename T>                                         \
    static bool Apply(const T& a, const T& b) { return EXPR; }    \
  }
TACT_COMPARE_FUNCTOR(EqualF, a == b);
TACT_COMPARE_FUNCTOR(NotEqualF, a != b);
TACT_COMPARE_FUNCTOR(LessF, a < b);
TACT_COMPARE_FUNCTOR(LessEqualF, a <= b);
TACT_COMPARE_FUNCTOR(GreaterF, a > b);
TACT_COMPARE_FUNCTOR(GreaterEqualF, a >= b);
TACT_COMPARE_FUNCTOR(LogicalAndF, a && b);
TACT_COMPARE_FUNCTOR(LogicalOrF, a || b);
#undef TACT_COMPARE_FUNCTOR

struct LogicalNotF {
  static constexpr int64_t kCost = 1;
  static bool Apply(bool x) { return !x; }
};

template <typename T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES(ctx, t.shape() == e.shape(),
                errors::InvalidArgument("'t' and 'e' must have the same shape, got ",
                                        t.shape().DebugString(), " and ",
                                        e.shape().DebugString()));
    const bool same = cond.shape() == t.shape();
    const bool scalar = cond.dims() == 0;
    const bool rows = cond.dims() == 1 && t.dims() >= 1 && cond.dim_size(0) == t.dim_size(0);
    OP_REQUIRES(ctx, same || scalar || rows,
                errors::InvalidArgument(
                    "'condition' must be a scalar, have the shape of 't' or be a vector of its "
                    "first dimension; got condition ",
                    cond.shape().DebugString(), " and t ", t.shape().DebugString()));
    if (scalar) {  // the whole of t or of e: share its buffer, copy nothing
      ctx->set_output(0, cond.scalar<bool>() ? t : e);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    const bool* pc = cond.data<bool>();
    const T* pt = t.data<T>();
    const T* pe = e.data<T>();
    T* po = out->data<T>();
    const int64_t n = t.NumElements();
    // Row length: 1 for an element-wise condition.
    const int64_t row = same ? 1 : (t.dim_size(0) == 0 ? 0 : n / t.dim_size(0));
    cwise::Shard(ctx, n, 2, [=](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) po[i] = pc[i / row] ? pt[i] : pe[i];
    });
  }
};

#define TACT_REGISTER_BOOL_OUT(T, OP, F)                                      \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOp<T, bool, F>);

TACT_CALL_NUMBER(TACT_REGISTER_BOOL_OUT, "Equal", EqualF)
TACT_REGISTER_BOOL_OUT(bool, "Equal", EqualF)
TACT_REGISTER_BOOL_OUT(std::string, "Equal", EqualF)
TACT_CALL_NUMBER(TACT_REGISTER_BOOL_OUT, "NotEqual", NotEqualF)
TACT_REGISTER_BOOL_OUT(bool, "NotEqual", NotEqualF)
TACT_REGISTER_BOOL_OUT(std::string, "NotEqual", NotEqualF)
TACT_CALL_REAL(TACT_REGISTER_BOOL_OUT, "Less", LessF)
TACT_CALL_REAL(TACT_REGISTER_BOOL_OUT, "LessEqual", LessEqualF)
TACT_CALL_REAL(TACT_REGISTER_BOOL_OUT, "Greater", GreaterF)
TACT_CALL_REAL(TACT_REGISTER_BOOL_OUT, "GreaterEqual", GreaterEqualF)

REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU), BinaryOp<bool, bool, LogicalAndF>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU), BinaryOp<bool, bool, LogicalOrF>);
REGISTER_KERNEL_BUILDER(Name("LogicalNot").Device(DEVICE_CPU), UnaryOp<bool, bool, LogicalNotF>);

#define TACT_REGISTER_SELECT(T, ...) \
  REGISTER_KERNEL_BUILDER(Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"), SelectOp<T>);
TACT_CALL_ALL(TACT_REGISTER_SELECT)

#undef TACT_REGISTER_SELECT
#undef TACT_REGISTER_BOOL_OUT

}  // namespace
}  // namespace tact
