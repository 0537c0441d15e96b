// Sum, Mean, Max, Min and Prod over a set of axes, and All and Any of bools.
//
// Determinism: training must be bit-reproducible across thread counts, so
// the order in which elements are combined depends only on the shapes,
// never on how the work is split. Every reduction is brought to the form
// [A, K, N] -> [A, N] (reduce the middle dimension; N = 1 is the common
// "reduce the last axis" case, A = 1 the bias-gradient "reduce the first
// axis" case). K is cut into chunks of a fixed length; each chunk is
// reduced in a fixed order, and the chunk results are combined by a fixed
// pairwise tree. Threads only decide who computes which chunk.
//
// Axes that are not adjacent (reduce 0 and 2 of [A,B,C,D]) take one such
// pass per run of adjacent reduced axes, innermost first.
//
// half and bfloat16 reduce in float and round the result once; the mean of
// an integer type narrower than 64 bits sums in int64, so that it is the
// mean of the values rather than of a wrapped sum.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/reduction_plan.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// Integer Sum and Prod wrap on overflow (as TensorFlow's do) without the
// undefined behaviour of signed overflow.
template <typename T>
struct SumReducer {
  static T Identity() { return T(0); }
  static T Combine(T a, T b) { return WrappingAdd(a, b); }
};

template <typename T>
struct ProdReducer {
  static T Identity() { return T(1); }
  static T Combine(T a, T b) { return WrappingMul(a, b); }
};

// Max and Min propagate NaN, so a NaN anywhere shows in the result.
template <typename T>
struct MaxReducer {
  static T Identity() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::lowest();
  }
  static T Combine(T a, T b) {
    // Branch-free (a select per lane) so that the lanes vectorise.
    if constexpr (std::is_floating_point_v<T>) return (a > b || a != a) ? a : b;
    return a > b ? a : b;
  }
};

template <typename T>
struct MinReducer {
  static T Identity() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::max();
  }
  static T Combine(T a, T b) {
    // Branch-free (a select per lane) so that the lanes vectorise.
    if constexpr (std::is_floating_point_v<T>) return (a < b || a != a) ? a : b;
    return a < b ? a : b;
  }
};

// All and Any, whose order of combining cannot change a result.
template <typename T>
struct AllReducer {
  static T Identity() { return true; }
  static T Combine(T a, T b) { return a && b; }
};

template <typename T>
struct AnyReducer {
  static T Identity() { return false; }
  static T Combine(T a, T b) { return a || b; }
};

// Chunk lengths along K. Fixed constants: changing one changes results in
// the last bits, so they are part of the reproducibility contract.
constexpr int64_t kInnerChunk = 4096;  // contiguous elements per chunk (N = 1)
constexpr int64_t kOuterChunk = 64;    // rows per chunk (N > 1)
constexpr int64_t kColumnBlock = 1024; // columns per work unit (N > 1); free to change

// A contiguous run in eight interleaved lanes (which the compiler can
// vectorise), then the lanes by a fixed tree.
template <typename R, typename T>
T ReduceContiguous(const T* p, int64_t n) {
  T acc[8];
  for (T& a : acc) a = R::Identity();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int l = 0; l < 8; ++l) acc[l] = R::Combine(acc[l], p[i + l]);
  }
  for (int l = 0; i + l < n; ++l) acc[l] = R::Combine(acc[l], p[i + l]);
  return R::Combine(R::Combine(R::Combine(acc[0], acc[1]), R::Combine(acc[2], acc[3])),
                    R::Combine(R::Combine(acc[4], acc[5]), R::Combine(acc[6], acc[7])));
}

// Combines rows 0..n-1 of `p` (each `cols` long, `stride` apart) by a fixed
// pairwise tree; the result is left in row 0.
template <typename R, typename T>
void PairwiseRows(T* p, int64_t n, int64_t cols, int64_t stride) {
  for (int64_t s = 1; s < n; s *= 2) {
    for (int64_t c = 0; c + s < n; c += 2 * s) {
      T* a = p + c * stride;
      const T* b = p + (c + s) * stride;
      for (int64_t j = 0; j < cols; ++j) a[j] = R::Combine(a[j], b[j]);
    }
  }
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// [A, K] -> [A], reducing contiguous rows.
template <typename R, typename T>
Status ReduceInner(OpKernelContext* ctx, const T* in, T* out, int64_t A, int64_t K) {
  const int64_t chunks = CeilDiv(K, kInnerChunk);
  if (chunks == 1) {
    ParallelFor(ctx, A, K, [&](int64_t b, int64_t e) {
      for (int64_t a = b; a < e; ++a) out[a] = ReduceContiguous<R>(in + a * K, K);
    });
    return Status::OK();
  }
  Tensor partial;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({A, chunks}),
                                          &partial));
  T* p = partial.data<T>();
  ParallelFor(ctx, A * chunks, kInnerChunk, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t a = u / chunks, c = u % chunks;
      const int64_t begin = c * kInnerChunk;
      p[u] = ReduceContiguous<R>(in + a * K + begin, std::min(kInnerChunk, K - begin));
    }
  });
  ParallelFor(ctx, A, chunks, [&](int64_t b, int64_t e) {
    for (int64_t a = b; a < e; ++a) {
      PairwiseRows<R>(p + a * chunks, chunks, 1, 1);
      out[a] = p[a * chunks];
    }
  });
  return Status::OK();
}

// Rows [k0, k1) of the [K, N] slab `in`, columns [j0, j1), into `acc`
// (indexed by j - j0), one row after another.
template <typename R, typename T>
void ReduceRows(const T* in, int64_t N, int64_t k0, int64_t k1, int64_t j0, int64_t j1, T* acc) {
  const int64_t cols = j1 - j0;
  for (int64_t j = 0; j < cols; ++j) acc[j] = R::Identity();
  for (int64_t k = k0; k < k1; ++k) {
    const T* row = in + k * N + j0;
    for (int64_t j = 0; j < cols; ++j) acc[j] = R::Combine(acc[j], row[j]);
  }
}

// [A, K, N] -> [A, N] with N > 1, walking rows so that memory is read in
// order.
template <typename R, typename T>
Status ReduceMiddle(OpKernelContext* ctx, const T* in, T* out, int64_t A, int64_t K, int64_t N) {
  const int64_t chunks = CeilDiv(K, kOuterChunk);
  const int64_t blocks = CeilDiv(N, kColumnBlock);
  if (chunks == 1) {
    ParallelFor(ctx, A * blocks, K * kColumnBlock, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        const int64_t a = u / blocks, j0 = (u % blocks) * kColumnBlock;
        const int64_t j1 = std::min(N, j0 + kColumnBlock);
        ReduceRows<R>(in + a * K * N, N, 0, K, j0, j1, out + a * N + j0);
      }
    });
    return Status::OK();
  }
  // partial[a, c, :] is chunk c of slab a.
  Tensor partial;
  TACT_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value,
                                          TensorShape({A, chunks, N}), &partial));
  T* p = partial.data<T>();
  ParallelFor(ctx, A * chunks * blocks, kOuterChunk * kColumnBlock, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t a = u / (chunks * blocks), c = (u / blocks) % chunks;
      const int64_t j0 = (u % blocks) * kColumnBlock, j1 = std::min(N, j0 + kColumnBlock);
      const int64_t k0 = c * kOuterChunk, k1 = std::min(K, k0 + kOuterChunk);
      ReduceRows<R>(in + a * K * N, N, k0, k1, j0, j1, p + (a * chunks + c) * N + j0);
    }
  });
  ParallelFor(ctx, A * blocks, chunks * kColumnBlock, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t a = u / blocks, j0 = (u % blocks) * kColumnBlock;
      const int64_t j1 = std::min(N, j0 + kColumnBlock);
      T* slab = p + a * chunks * N + j0;
      PairwiseRows<R>(slab, chunks, j1 - j0, N);
      std::copy(slab, slab + (j1 - j0), out + a * N + j0);
    }
  });
  return Status::OK();
}

// The type a reduction of T accumulates in (see the top of the file).
template <typename T, bool kMean>
using Accumulator = std::conditional_t<
    kIs16BitFloat<T>, float,
    std::conditional_t<kMean && std::is_integral_v<T> && sizeof(T) < 8, int64_t, T>>;

template <typename T, template <typename> class R, bool kMean>
class ReductionOp : public OpKernel {
  using A = Accumulator<T, kMean>;

 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::optional<ReductionPlan> plan = PlanReductionOrForward(ctx, keep_dims_);
    if (!plan) return;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->output_shape, &out));
    if (out->NumElements() == 0) return;
    T* o = out->data<T>();
    if (plan->reduced_count == 0) {
      const T fill = static_cast<T>(kMean ? EmptyMean() : R<A>::Identity());
      std::fill(o, o + out->NumElements(), fill);
      return;
    }
    const int64_t n_in = in.NumElements(), n_out = out->NumElements();
    const A* src = nullptr;
    A* dst = nullptr;
    Tensor in_acc, out_acc;
    if constexpr (std::is_same_v<A, T>) {
      src = in.data<T>();
      dst = o;
    } else {  // widen the input, reduce, narrow the result
      constexpr DataType kAcc = DataTypeToEnum<A>::value;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(kAcc, TensorShape({n_in}), &in_acc));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(kAcc, TensorShape({n_out}), &out_acc));
      const T* x = in.data<T>();
      A* w = in_acc.data<A>();
      ParallelFor(ctx, n_in, 2, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) w[i] = static_cast<A>(x[i]);
      });
      src = w;
      dst = out_acc.data<A>();
    }
    OP_REQUIRES_OK(ctx, Reduce(ctx, src, dst, plan->groups));
    if constexpr (kMean || !std::is_same_v<A, T>) {
      const int64_t count = plan->reduced_count;
      ParallelFor(ctx, n_out, 4, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          if constexpr (kMean) dst[i] = Divide(dst[i], count);
          if constexpr (!std::is_same_v<A, T>) o[i] = static_cast<T>(dst[i]);
        }
      });
    }
  }

 private:
  // One [A, K, N] pass per reduced group, innermost first; intermediate
  // results live in temps, the last pass writes `out`.
  static Status Reduce(OpKernelContext* ctx, const A* in, A* out,
                       std::vector<ReductionPlan::Group> groups) {
    Tensor temp;
    const A* src = in;
    while (true) {
      int r = static_cast<int>(groups.size()) - 1;
      while (r >= 0 && !groups[r].reduced) --r;
      if (r < 0) return Status::OK();
      int64_t outer = 1, N = 1;
      bool last_pass = true;
      for (int g = 0; g < r; ++g) {
        outer *= groups[g].size;
        last_pass &= !groups[g].reduced;
      }
      for (size_t g = r + 1; g < groups.size(); ++g) N *= groups[g].size;
      A* dst = out;
      Tensor next;
      if (!last_pass) {
        TACT_RETURN_IF_ERROR(
            ctx->allocate_temp(DataTypeToEnum<A>::value, TensorShape({outer * N}), &next));
        dst = next.data<A>();
      }
      const int64_t K = groups[r].size;
      TACT_RETURN_IF_ERROR(N == 1 ? ReduceInner<R<A>>(ctx, src, dst, outer, K)
                                  : ReduceMiddle<R<A>>(ctx, src, dst, outer, K, N));
      // The kept groups either side of r are now adjacent: merge them.
      if (r + 1 < static_cast<int>(groups.size()) && r > 0) {
        groups[r - 1].size *= groups[r + 1].size;
        groups.erase(groups.begin() + r, groups.begin() + r + 2);
      } else {
        groups.erase(groups.begin() + r);
      }
      temp = next;  // keeps the source of the next pass alive
      src = dst;
    }
  }

  static A EmptyMean() {
    if constexpr (std::is_floating_point_v<A>) {
      return std::numeric_limits<A>::quiet_NaN();
    } else if constexpr (kIsComplex<A>) {
      const auto nan = std::numeric_limits<typename A::value_type>::quiet_NaN();
      return A(nan, nan);
    } else {
      return A(0);  // integers have no NaN; 0 rather than a division by zero
    }
  }
  static A Divide(A sum, int64_t n) {
    if constexpr (std::is_floating_point_v<A>) {
      return sum / static_cast<A>(n);
    } else if constexpr (kIsComplex<A>) {
      return sum / static_cast<typename A::value_type>(n);
    } else {
      return static_cast<A>(static_cast<int64_t>(sum) / n);
    }
  }

  bool keep_dims_ = false;
};

// The types of the ops' declarations (graph/ops/reduction_ops.cc).
#define TACT_REGISTER_REDUCTION(T, OP, R, MEAN)                               \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          ReductionOp<T, R, MEAN>);
TACT_CALL_NUMBER(TACT_REGISTER_REDUCTION, "Sum", SumReducer, false)
TACT_CALL_NUMBER(TACT_REGISTER_REDUCTION, "Mean", SumReducer, true)
TACT_CALL_NUMBER(TACT_REGISTER_REDUCTION, "Prod", ProdReducer, false)
TACT_CALL_REAL(TACT_REGISTER_REDUCTION, "Max", MaxReducer, false)
TACT_CALL_REAL(TACT_REGISTER_REDUCTION, "Min", MinReducer, false)
#undef TACT_REGISTER_REDUCTION
REGISTER_KERNEL_BUILDER(Name("All").Device(DEVICE_CPU), ReductionOp<bool, AllReducer, false>);
REGISTER_KERNEL_BUILDER(Name("Any").Device(DEVICE_CPU), ReductionOp<bool, AnyReducer, false>);

}  // namespace
}  // namespace tact
