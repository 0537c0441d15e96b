// FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU, NHWC: x is viewed
// as [rows, C] with rows = N * H * W, so a channel's values are C apart and
// each pass over x runs along rows with the channels contiguous.
//
// The per-channel sums (the moments, and the gradient's two) run over
// blocks of rows whose size depends only on the shape, each accumulated in
// double, and the blocks' sums are added in block order: the same bits on
// any number of threads, as tact's other reductions. The moments take one
// pass, over x shifted by a value of the batch (see BatchMoments). The
// element-wise passes compute in U (float for half and bfloat16, which are
// stored in 16 bits).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/op_checks.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

constexpr int64_t kBlockElements = 1 << 14;  // part of the reproducibility contract: fixed

// x as [rows, channels], and its split into blocks of rows.
struct RowView {
  int64_t rows = 0;
  int64_t channels = 0;
  int64_t rows_per_block = 1;
  int64_t blocks = 0;
};

RowView ViewOf(const Tensor& x) {
  RowView v;
  v.channels = x.dim_size(3);
  v.rows = v.channels == 0 ? 0 : x.NumElements() / v.channels;
  v.rows_per_block = std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, v.channels));
  v.blocks = (v.rows + v.rows_per_block - 1) / v.rows_per_block;
  return v;
}

// `width` sums per channel: add_rows(r0, r1, acc) adds rows [r0, r1) into
// acc[width * channels]; blocks run in parallel, and their sums are added
// in block order.
std::vector<double> ChannelSums(OpKernelContext* ctx, const RowView& v, int width,
                                const std::function<void(int64_t, int64_t, double*)>& add_rows) {
  const int64_t stride = width * v.channels;
  std::vector<double> partial(v.blocks * stride, 0.0);
  ParallelFor(ctx, v.blocks, v.rows_per_block * stride * 2, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t r0 = b * v.rows_per_block;
      add_rows(r0, std::min(v.rows, r0 + v.rows_per_block), partial.data() + b * stride);
    }
  });
  std::vector<double> sums(stride, 0.0);
  for (int64_t b = 0; b < v.blocks; ++b) {
    for (int64_t j = 0; j < stride; ++j) sums[j] += partial[b * stride + j];
  }
  return sums;
}

Status CheckVector(const Tensor& t, const char* what, int64_t channels) {
  if (t.dims() == 1 && t.dim_size(0) == channels) return Status::OK();
  return errors::InvalidArgument(what, " must be a vector of the ", channels,
                                 " channels of x, got shape ", t.shape().DebugString());
}

Status CheckX(const Tensor& x, const char* what) {
  if (x.dims() == 4) return Status::OK();
  return errors::InvalidArgument(what, " must be of rank 4 (NHWC), got shape ",
                                 x.shape().DebugString());
}

class BatchNormBase : public OpKernel {
 public:
  explicit BatchNormBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadNhwcFormat(ctx);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    OP_REQUIRES(ctx, std::isfinite(epsilon_) && epsilon_ >= 0,
                errors::InvalidArgument("epsilon must be finite and >= 0, got ", epsilon_));
  }

 protected:
  float epsilon_ = 0;
  bool is_training_ = true;
};

template <typename T, typename U>
class FusedBatchNormOp : public BatchNormBase {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : BatchNormBase(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &factor_));
    OP_REQUIRES(ctx, std::isfinite(factor_),
                errors::InvalidArgument("exponential_avg_factor must be finite, got ", factor_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckX(x, "x"));
    const RowView v = ViewOf(x);
    const int64_t c = v.channels;
    OP_REQUIRES_OK(ctx, CheckVector(ctx->input(1), "scale", c));
    OP_REQUIRES_OK(ctx, CheckVector(ctx->input(2), "offset", c));
    // Training without a running average (factor 1) does not read them.
    const bool reads_running = !is_training_ || factor_ != 1.0f;
    for (int i : {3, 4}) {
      const Tensor& t = ctx->input(i);
      if (!reads_running && t.NumElements() == 0) continue;
      OP_REQUIRES_OK(ctx, CheckVector(t, i == 3 ? "mean" : "variance", c));
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    std::vector<Tensor*> out(6, nullptr);
    for (int i = 1; i < 5; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({c}), &out[i]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({0}), &out[5]));

    std::vector<double> mean(c), var(c);
    if (is_training_) {
      BatchMoments(ctx, x.data<T>(), v, &mean, &var);
    } else {
      for (int64_t j = 0; j < c; ++j) {
        mean[j] = ctx->input(3).data<U>()[j];
        var[j] = ctx->input(4).data<U>()[j];
      }
    }
    // y = (x - m) * a + offset per channel, centred first as TensorFlow's
    // kernel does: x * a + b would lose the spread of a channel whose mean
    // is large against it.
    std::vector<U> m(c), a(c);
    const U* scale = ctx->input(1).data<U>();
    const U* offset = ctx->input(2).data<U>();
    for (int64_t j = 0; j < c; ++j) {
      m[j] = static_cast<U>(mean[j]);
      a[j] = static_cast<U>(static_cast<double>(scale[j]) / std::sqrt(var[j] + epsilon_));
    }
    const T* xp = x.data<T>();
    T* yp = y->data<T>();
    ParallelFor(ctx, v.rows, c * 2, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < c; ++j) {
          yp[r * c + j] = static_cast<T>((static_cast<U>(xp[r * c + j]) - m[j]) * a[j] + offset[j]);
        }
      }
    });
    WriteStatistics(ctx, v, mean, var, out);
  }

 private:
  // The batch's mean and biased variance per channel (NaN for an empty batch,
  // as TensorFlow gives).
  static void BatchMoments(OpKernelContext* ctx, const T* x, const RowView& v,
                           std::vector<double>* mean, std::vector<double>* var) {
    const int64_t c = v.channels;
    if (v.rows == 0) {
      std::fill(mean->begin(), mean->end(), std::numeric_limits<double>::quiet_NaN());
      std::fill(var->begin(), var->end(), std::numeric_limits<double>::quiet_NaN());
      return;
    }
    // One pass over x - pivot, the channel's first value: shifted by a value
    // of the batch, the sums of d and d^2 (in double) do not cancel when the
    // mean is large against the spread, as sums of x and x^2 would.
    std::vector<double> pivot(c);
    for (int64_t j = 0; j < c; ++j) pivot[j] = static_cast<double>(static_cast<U>(x[j]));
    std::vector<double> sums = ChannelSums(ctx, v, 2, [&](int64_t r0, int64_t r1, double* acc) {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < c; ++j) {
          const double d = static_cast<double>(static_cast<U>(x[r * c + j])) - pivot[j];
          acc[j] += d;
          acc[c + j] += d * d;
        }
      }
    });
    const double n = static_cast<double>(v.rows);
    for (int64_t j = 0; j < c; ++j) {
      const double shift = sums[j] / n;
      (*mean)[j] = pivot[j] + shift;
      (*var)[j] = std::max(0.0, sums[c + j] / n - shift * shift);
    }
  }

  // Outputs 1-4: the running averages (training) or the inputs passed on.
  void WriteStatistics(OpKernelContext* ctx, const RowView& v, const std::vector<double>& mean,
                       const std::vector<double>& var, const std::vector<Tensor*>& out) const {
    const int64_t c = v.channels;
    // The unbiased variance divides by rows - 1; TensorFlow's kernel keeps
    // a batch of one row from dividing by zero the same way.
    const double bessel = static_cast<double>(v.rows) / static_cast<double>(std::max<int64_t>(v.rows - 1, 1));
    const double f = factor_;
    for (int64_t j = 0; j < c; ++j) {
      double running_mean = mean[j], running_var = var[j];
      if (is_training_) {
        running_var = var[j] * bessel;
        if (f != 1.0) {
          running_mean = (1 - f) * static_cast<double>(ctx->input(3).data<U>()[j]) + f * mean[j];
          running_var = (1 - f) * static_cast<double>(ctx->input(4).data<U>()[j]) + f * running_var;
        }
      }
      out[1]->data<U>()[j] = static_cast<U>(running_mean);
      out[2]->data<U>()[j] = static_cast<U>(running_var);
      out[3]->data<U>()[j] = static_cast<U>(mean[j]);
      out[4]->data<U>()[j] = static_cast<U>(var[j]);
    }
  }

  float factor_ = 1;
};

template <typename T, typename U>
class FusedBatchNormGradOp : public BatchNormBase {
 public:
  using BatchNormBase::BatchNormBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckX(x, "x"));
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                errors::InvalidArgument("y_backprop ", dy.shape().DebugString(), " and x ",
                                        x.shape().DebugString(), " must have one shape"));
    const RowView v = ViewOf(x);
    const int64_t c = v.channels;
    OP_REQUIRES_OK(ctx, CheckVector(ctx->input(2), "scale", c));
    OP_REQUIRES_OK(ctx, CheckVector(ctx->input(3), "reserve_space_1 (the mean)", c));
    OP_REQUIRES_OK(ctx, CheckVector(ctx->input(4), "reserve_space_2 (the variance)", c));
    Tensor* dx = nullptr;
    std::vector<Tensor*> out(5, nullptr);
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    for (int i : {1, 2}) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({c}), &out[i]));
    for (int i : {3, 4}) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({0}), &out[i]));

    const U* scale = ctx->input(2).data<U>();
    const U* mean = ctx->input(3).data<U>();
    const U* var = ctx->input(4).data<U>();
    const T* dyp = dy.data<T>();
    const T* xp = x.data<T>();
    // sums[j]: sum of dy; sums[c + j]: sum of dy * (x - mean).
    std::vector<double> sums = ChannelSums(ctx, v, 2, [&](int64_t r0, int64_t r1, double* acc) {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < c; ++j) {
          const double g = static_cast<double>(static_cast<U>(dyp[r * c + j]));
          acc[j] += g;
          acc[c + j] += g * (static_cast<double>(static_cast<U>(xp[r * c + j])) - mean[j]);
        }
      }
    });
    // dx = a * dy + b * (x - mean) + k per channel. Training:
    //   dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat)),
    //   xhat = (x - mean) * inv, inv = 1 / sqrt(variance + epsilon);
    // inference: dx = scale * inv * dy.
    std::vector<U> a(c), b(c), k(c);
    const double n = static_cast<double>(std::max<int64_t>(v.rows, 1));
    for (int64_t j = 0; j < c; ++j) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var[j]) + epsilon_);
      const double aj = static_cast<double>(scale[j]) * inv;
      a[j] = static_cast<U>(aj);
      b[j] = is_training_ ? static_cast<U>(-aj * inv * inv * sums[c + j] / n) : U(0);
      k[j] = is_training_ ? static_cast<U>(-aj * sums[j] / n) : U(0);
      out[1]->data<U>()[j] = static_cast<U>(inv * sums[c + j]);
      out[2]->data<U>()[j] = static_cast<U>(sums[j]);
    }
    T* dxp = dx->data<T>();
    ParallelFor(ctx, v.rows, c * 3, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < c; ++j) {
          const U centred = static_cast<U>(xp[r * c + j]) - mean[j];
          dxp[r * c + j] =
              static_cast<T>(a[j] * static_cast<U>(dyp[r * c + j]) + b[j] * centred + k[j]);
        }
      }
    });
  }
};

#define TACT_REGISTER(T, U)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3").Device(DEVICE_CPU).TypeConstraint<T>("T") \
                              .TypeConstraint<U>("U"), FusedBatchNormOp<T, U>);                \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3").Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T").TypeConstraint<U>("U"),                  \
                          FusedBatchNormGradOp<T, U>);
TACT_REGISTER(half, float)
TACT_REGISTER(bfloat16, float)
TACT_REGISTER(float, float)
TACT_REGISTER(double, double)
#undef TACT_REGISTER

}  // namespace
}  // namespace tact
