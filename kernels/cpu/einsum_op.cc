// Einsum (graph/ops/einsum_equation.h). With two operands each label takes
// one role:
//   batch     in both operands and the output   B
//   free      in one operand and the output     M (operand 0), N (operand 1)
//   contract  in both operands, not the output  K
//   summed    in one operand only               S, summed before the product
// Operand 0 is read as [B, M, K] and operand 1 as [B, K, N], straight from
// its buffer when it is stored that way (or as [B, K, M] / [B, N, K]: a
// transposed GEMM operand), else through a copy into that order; the
// product is one BatchedGemm, written straight into the output when the
// output's order is [B, M, N], else copied into it. One operand is a copy
// into the output's order, summed over the labels the output lacks.
//
// An ellipsis dimension of size 1 in an operand whose broadcast size is
// larger counts as absent from that operand: it only broadcasts. half and
// bfloat16 are multiplied and summed in float, as MatMul does.
#include <algorithm>
#include <numeric>

#include "graph/ops/einsum_equation.h"
#include "kernels/cpu/array_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/parallel_gemm.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

// An operand's stride for each label (-1 where it lacks the label).
struct Operand {
  const Tensor* tensor;
  std::vector<int64_t> stride;
};

Operand Strides(const Tensor& t, const std::vector<int>& axes, const EinsumDims& dims,
                int num_labels) {
  Operand op{&t, std::vector<int64_t>(num_labels, -1)};
  const std::vector<int64_t> strides = RowMajorStrides(t.shape().dim_sizes());
  for (size_t a = 0; a < axes.size(); ++a) {
    if (t.dim_size(static_cast<int>(a)) == 1 && dims.LabelSize(axes[a]) != 1) continue;
    op.stride[axes[a]] = strides[a];
  }
  return op;
}

int64_t Product(const std::vector<int>& labels, const EinsumDims& dims) {
  int64_t n = 1;
  for (int l : labels) n *= dims.LabelSize(l);
  return n;
}

// True if `strides` (per label) are the row-major strides of `labels` laid
// out in that order, wherever a label's size makes a stride matter.
bool RowMajorIn(const std::vector<int64_t>& strides, const std::vector<int>& labels,
                const EinsumDims& dims) {
  int64_t expect = 1;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    const int64_t size = dims.LabelSize(*it);
    if (size != 1 && strides[*it] != expect) return false;
    expect *= size;
  }
  return true;
}

template <typename T>
class EinsumOp : public OpKernel {
  using A = ComputeType<T>;

 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string equation;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation));
    int n = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("N", &n));
    OP_REQUIRES(ctx, n <= 2, errors::InvalidArgument("the Einsum op takes one or two operands, got ",
                                                     n, " (the Einsum builder chains more)"));
    StatusOr<EinsumEquation> eq = ParseEinsumEquation(equation, n);
    OP_REQUIRES_OK(ctx, eq.status());
    eq_ = std::move(eq).value();
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<PartialTensorShape> shapes;
    for (int i = 0; i < ctx->num_inputs(); ++i) shapes.push_back(ctx->input(i).shape());
    StatusOr<EinsumDims> dims = ResolveEinsumDims(eq_, shapes);
    OP_REQUIRES_OK(ctx, dims.status());
    StatusOr<TensorShape> out_shape = EinsumOutputShape(eq_, *dims).AsTensorShape();
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const int e = static_cast<int>(dims->ellipsis.size());
    const int num_labels = EinsumEquation::kFirstEllipsisLabel + e;
    std::vector<Operand> ops;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      ops.push_back(Strides(ctx->input(i),
                            ExpandAxes(eq_.inputs[i], dims->operand_ellipsis_rank[i], e), *dims,
                            num_labels));
    }
    const std::vector<int> out_axes = ExpandAxes(eq_.output, e, e);
    if (ops.size() == 1) {
      OP_REQUIRES_OK(ctx, Reduce(ctx, ops[0], out_axes, *dims, out));
    } else {
      OP_REQUIRES_OK(ctx, Contract(ctx, ops[0], ops[1], out_axes, *dims, out));
    }
  }

 private:
  // The labels of `op` (in label order) that are not in `keep`.
  static std::vector<int> Others(const Operand& op, const std::vector<int>& keep) {
    std::vector<int> others;
    for (int l = 0; l < static_cast<int>(op.stride.size()); ++l) {
      if (op.stride[l] >= 0 && std::find(keep.begin(), keep.end(), l) == keep.end()) {
        others.push_back(l);
      }
    }
    return others;
  }

  // `op`'s elements in the order of `labels` (each of which it has), summed
  // over `summed`, as A values in *sums; or, if `op` is stored that way and
  // nothing needs converting or summing, a pointer into its own buffer.
  StatusOr<const A*> Arrange(OpKernelContext* ctx, const Operand& op,
                             const std::vector<int>& labels, const std::vector<int>& summed,
                             const EinsumDims& dims, Tensor* copy, std::vector<A>* sums) const {
    const int64_t s = Product(summed, dims);
    const T* src = op.tensor->data<T>();
    std::vector<int> order = labels;
    order.insert(order.end(), summed.begin(), summed.end());
    if (!RowMajorIn(op.stride, order, dims)) {
      std::vector<int64_t> copy_dims, copy_strides;
      for (int l : order) {
        copy_dims.push_back(dims.LabelSize(l));
        copy_strides.push_back(op.stride[l]);
      }
      *copy = Tensor(op.tensor->dtype(), TensorShape(copy_dims));
      TACT_RETURN_IF_ERROR(StridedCopy(ctx, *op.tensor, 0, copy_dims, copy_strides, copy));
      src = copy->data<T>();
    }
    if constexpr (std::is_same_v<A, T>) {
      if (s == 1) return src;
    }
    const int64_t rows = Product(labels, dims);
    sums->assign(rows, A(0));
    A* dst = sums->data();
    ParallelFor(ctx, rows, std::max<int64_t>(s, 1) * 2, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        A acc(0);
        for (int64_t j = 0; j < s; ++j) acc = WrappingAdd<A>(acc, static_cast<A>(src[r * s + j]));
        dst[r] = acc;
      }
    });
    return static_cast<const A*>(dst);
  }

  Status Reduce(OpKernelContext* ctx, const Operand& op, const std::vector<int>& out_axes,
                const EinsumDims& dims, Tensor* out) const {
    const std::vector<int> summed = Others(op, out_axes);
    if (Product(summed, dims) == 1) {  // a transposition: no arithmetic
      std::vector<int64_t> read;
      for (int l : out_axes) read.push_back(std::max<int64_t>(op.stride[l], 0));
      return StridedCopy(ctx, *op.tensor, 0, out->shape().dim_sizes(), read, out);
    }
    std::vector<int> kept;  // the output's labels that the operand has
    for (int l : out_axes) {
      if (op.stride[l] >= 0) kept.push_back(l);
    }
    Tensor copy;
    std::vector<A> sums;
    TACT_ASSIGN_OR_RETURN(const A* r, Arrange(ctx, op, kept, summed, dims, &copy, &sums));
    T* y = out->data<T>();
    ParallelFor(ctx, out->NumElements(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = static_cast<T>(r[i]);
    });
    return Status::OK();
  }

  Status Contract(OpKernelContext* ctx, const Operand& x, const Operand& y,
                  const std::vector<int>& out_axes, const EinsumDims& dims, Tensor* out) const {
    std::vector<int> batch, free_x, free_y, contract;
    for (int l : out_axes) {
      const bool in_x = x.stride[l] >= 0, in_y = y.stride[l] >= 0;
      if (in_x && in_y) batch.push_back(l);
      if (in_x && !in_y) free_x.push_back(l);
      if (!in_x && in_y) free_y.push_back(l);
    }
    for (int l = 0; l < static_cast<int>(x.stride.size()); ++l) {
      const bool in_out = std::find(out_axes.begin(), out_axes.end(), l) != out_axes.end();
      if (x.stride[l] >= 0 && y.stride[l] >= 0 && !in_out) contract.push_back(l);
    }
    auto cat = [](std::vector<int> a, const std::vector<int>& b, const std::vector<int>& c) {
      a.insert(a.end(), b.begin(), b.end());
      a.insert(a.end(), c.begin(), c.end());
      return a;
    };
    // x as [B, M, K] and y as [B, K, N], or each transposed where it is
    // stored that way and not straight (half and bfloat16 are converted,
    // so copied, anyway).
    auto plan = [&](const Operand& op, const std::vector<int>& free, bool free_first, bool* trans) {
      const std::vector<int> straight =
          free_first ? cat(batch, free, contract) : cat(batch, contract, free);
      const std::vector<int> swapped =
          free_first ? cat(batch, contract, free) : cat(batch, free, contract);
      *trans = !kIs16BitFloat<T> && !RowMajorIn(op.stride, straight, dims) &&
               RowMajorIn(op.stride, swapped, dims);
      return *trans ? swapped : straight;
    };
    bool trans_x = false, trans_y = false;
    const std::vector<int> order_x = plan(x, free_x, true, &trans_x);
    const std::vector<int> order_y = plan(y, free_y, false, &trans_y);
    Tensor copy_x, copy_y;
    std::vector<A> sums_x, sums_y;
    TACT_ASSIGN_OR_RETURN(const A* a,
                          Arrange(ctx, x, order_x, Others(x, order_x), dims, &copy_x, &sums_x));
    TACT_ASSIGN_OR_RETURN(const A* b,
                          Arrange(ctx, y, order_y, Others(y, order_y), dims, &copy_y, &sums_y));
    const int64_t nb = Product(batch, dims), m = Product(free_x, dims);
    const int64_t n = Product(free_y, dims), k = Product(contract, dims);
    std::vector<int64_t> index(nb);
    std::iota(index.begin(), index.end(), 0);
    const std::vector<int> product_order = cat(batch, free_x, free_y);
    std::vector<int64_t> out_strides(dims.ellipsis.size() + EinsumEquation::kFirstEllipsisLabel, 0);
    {
      const std::vector<int64_t> s = RowMajorStrides(out->shape().dim_sizes());
      for (size_t i = 0; i < out_axes.size(); ++i) out_strides[out_axes[i]] = s[i];
    }
    if constexpr (std::is_same_v<A, T>) {
      if (RowMajorIn(out_strides, product_order, dims)) {
        BatchedGemm<A>(ctx, trans_x, trans_y, m, n, k, a, index, b, index, out->data<T>());
        return Status::OK();
      }
    }
    Tensor product(DataTypeToEnum<T>::value, TensorShape({nb * m * n}));
    if constexpr (std::is_same_v<A, T>) {
      BatchedGemm<A>(ctx, trans_x, trans_y, m, n, k, a, index, b, index, product.data<T>());
    } else {
      std::vector<A> wide(nb * m * n);
      BatchedGemm<A>(ctx, trans_x, trans_y, m, n, k, a, index, b, index, wide.data());
      T* p = product.data<T>();
      for (int64_t i = 0; i < nb * m * n; ++i) p[i] = static_cast<T>(wide[i]);
    }
    // The product's [B, M, N] strides, read in the output's order.
    std::vector<int64_t> product_strides(out_strides.size(), 0), read;
    int64_t stride = 1;
    for (auto it = product_order.rbegin(); it != product_order.rend(); ++it) {
      product_strides[*it] = stride;
      stride *= dims.LabelSize(*it);
    }
    for (int l : out_axes) read.push_back(product_strides[l]);
    return StridedCopy(ctx, product, 0, out->shape().dim_sizes(), read, out);
  }

  EinsumEquation eq_;
};

// The types of Einsum's declaration (graph/ops/linalg_ops.cc), TensorFlow's.
#define TACT_REGISTER_EINSUM(T, ...)                                                \
  REGISTER_KERNEL_BUILDER(Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          EinsumOp<T>);
TACT_CALL_FLOATING(TACT_REGISTER_EINSUM)
TACT_CALL_INT(TACT_REGISTER_EINSUM)
TACT_CALL_COMPLEX(TACT_REGISTER_EINSUM)
#undef TACT_REGISTER_EINSUM

}  // namespace
}  // namespace tact
