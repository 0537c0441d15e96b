// RandomUniform, RandomStandardNormal and TruncatedNormal, and their
// Stateless variants.
//
// Every value is a pure function of (key, step, element index) through the
// counter-based Philox4x32-10 generator (kernels/cpu/random/philox.h), so
// threads fill disjoint ranges and the tensor is bit-identical for every
// thread count and every run. The key comes from (seed, seed2); when both
// are 0 it comes from a hash of the node's name instead (deterministic, yet
// different for different nodes: see graph/ops/random_ops.h).
//
// Element layout: one Philox call yields four 32-bit words. A float takes
// one word (four elements per call), a double two (two per call); half and
// bfloat16 are drawn as floats and rounded; the
// normals pair up words for Box-Muller the same way. TruncatedNormal spends
// one call per element, and a re-draw uses the next attempt number in the
// counter's top byte, so a re-drawn element still depends only on its index.
#include <cmath>
#include <string>
#include <vector>

#include "graph/stable_hash.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/numeric_types.h"
#include "kernels/cpu/random/philox.h"
#include "kernels/kernel_registry.h"

namespace tact {
namespace {

using random::PhiloxBlock;
using random::PhiloxKey;

enum class Dist { kUniform, kNormal, kTruncatedNormal };

constexpr double kTwoPi = 6.283185307179586;
constexpr double kTruncateAt = 2.0;  // in standard deviations
constexpr int kMaxAttempts = 256;    // P(needing more) is about 0.002^256

// The uniform in [0, 1) that words r[w] (and r[w + 1] for doubles) give.
template <typename T>
double Unit(const PhiloxBlock& r, int w) {
  if constexpr (std::is_same_v<T, double>) {
    return random::Uint64ToUnitDouble(r[w], r[w + 1]);
  } else {
    return random::Uint32ToUnitFloat(r[w]);
  }
}

// Box-Muller on two uniforms in [0, 1): 1 - u1 lies in (0, 1], so the log
// is finite.
void BoxMuller(double u1, double u2, double* z0, double* z1) {
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));
  const double theta = kTwoPi * u2;
  *z0 = radius * std::cos(theta);
  *z1 = radius * std::sin(theta);
}

// Elements per Philox call.
template <typename T, Dist D>
constexpr int Lanes() {
  if (D == Dist::kTruncatedNormal) return 1;
  return std::is_same_v<T, double> ? 2 : 4;
}

template <typename T, Dist D>
void Group(const PhiloxKey& key, uint64_t group, uint64_t stream, T* vals) {
  constexpr int kWords = std::is_same_v<T, double> ? 2 : 1;  // words per uniform
  if constexpr (D == Dist::kUniform) {
    const PhiloxBlock r = random::Philox4x32(key, random::MakePhiloxCounter(group, stream));
    for (int l = 0; l < Lanes<T, D>(); ++l) {
      if constexpr (kIs16BitFloat<T>) {
        // A float in [0, 1) could round up to 1 in 16 bits: take as many
        // random bits as T's mantissa holds instead, as TensorFlow does.
        constexpr int kBits = std::is_same_v<T, half> ? 10 : 7;
        vals[l] = static_cast<T>(static_cast<float>(r[l] >> (32 - kBits)) / (1 << kBits));
      } else {
        vals[l] = static_cast<T>(Unit<T>(r, l * kWords));
      }
    }
  } else if constexpr (D == Dist::kNormal) {
    const PhiloxBlock r = random::Philox4x32(key, random::MakePhiloxCounter(group, stream));
    for (int l = 0; l < Lanes<T, D>(); l += 2) {
      double z0, z1;
      BoxMuller(Unit<T>(r, l * kWords), Unit<T>(r, (l + 1) * kWords), &z0, &z1);
      vals[l] = static_cast<T>(z0);
      vals[l + 1] = static_cast<T>(z1);
    }
  } else {
    for (uint64_t attempt = 0; attempt < kMaxAttempts; ++attempt) {
      const PhiloxBlock r = random::Philox4x32(
          key, random::MakePhiloxCounter(group, stream ^ (attempt << 56)));
      for (int w = 0; w < 4; w += 2 * kWords) {
        double z[2];
        BoxMuller(Unit<T>(r, w), Unit<T>(r, w + kWords), &z[0], &z[1]);
        for (double v : z) {
          // Compared after rounding to T, so a float output never reaches 2.
          const T t = static_cast<T>(v);
          if (std::abs(static_cast<double>(static_cast<ComputeType<T>>(t))) < kTruncateAt) {
            vals[0] = t;
            return;
          }
        }
      }
    }
    vals[0] = T(0);
  }
}

// Fills a tensor of the shape in input 0 from (key, stream).
template <typename T, Dist D>
void Fill(OpKernelContext* ctx, const PhiloxKey& key, uint64_t stream) {
  const Tensor& shape_t = ctx->input(0);
  OP_REQUIRES(ctx, shape_t.dims() == 1,
              errors::InvalidArgument("shape must be a vector, got shape ",
                                      shape_t.shape().DebugString()));
  StatusOr<std::vector<int64_t>> dims = ReadIntVector(shape_t, "shape");
  OP_REQUIRES_OK(ctx, dims.status());
  StatusOr<TensorShape> shape = TensorShape::FromDims(*dims);
  OP_REQUIRES_OK(ctx, shape.status());
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
  const int64_t n = out->NumElements();
  constexpr int kLanes = Lanes<T, D>();
  const int64_t groups = (n + kLanes - 1) / kLanes;
  T* o = out->data<T>();
  ParallelFor(ctx, groups, 100, [&](int64_t b, int64_t e) {
    T vals[kLanes];
    for (int64_t g = b; g < e; ++g) {
      Group<T, D>(key, static_cast<uint64_t>(g), stream, vals);
      for (int l = 0; l < kLanes && g * kLanes + l < n; ++l) o[g * kLanes + l] = vals[l];
    }
  });
}

template <typename T, Dist D>
class RandomOp : public OpKernel {
 public:
  explicit RandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0, seed2 = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      key_ = random::MakePhiloxKey(StableHash(ctx->def().name), 0x7461637452616E64ull);
    } else {
      key_ = random::MakePhiloxKey(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    // The step's number in its session (the id's low 32 bits, see
    // actors/master.cc), not the whole id, so that a seeded op draws the
    // same numbers in the same step of every session.
    Fill<T, D>(ctx, key_, static_cast<uint32_t>(ctx->step_id()));
  }

 private:
  PhiloxKey key_{};
};

// The key from the seed input (two int32 or int64), the stream fixed: the
// same seed gives the same tensor in any step of any session.
template <typename T, Dist D>
class StatelessRandomOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed_t = ctx->input(1);
    OP_REQUIRES(ctx, seed_t.dims() == 1 && seed_t.NumElements() == 2,
                errors::InvalidArgument("seed must be a vector of 2 elements, got shape ",
                                        seed_t.shape().DebugString()));
    StatusOr<std::vector<int64_t>> seed = ReadIntVector(seed_t, "seed");
    OP_REQUIRES_OK(ctx, seed.status());
    const PhiloxKey key =
        random::MakePhiloxKey(static_cast<uint64_t>((*seed)[0]), static_cast<uint64_t>((*seed)[1]));
    Fill<T, D>(ctx, key, kStatelessStream);
  }

 private:
  // Apart from every step's stream of the stateful ops (those are < 2^32),
  // and clear of the top byte, where TruncatedNormal counts its re-draws.
  static constexpr uint64_t kStatelessStream = uint64_t{0x746163} << 32;
};

#define TACT_REGISTER_RANDOM(T)                                                              \
  REGISTER_KERNEL_BUILDER(Name("RandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
                          RandomOp<T, Dist::kUniform>);                                      \
  REGISTER_KERNEL_BUILDER(                                                                   \
      Name("RandomStandardNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),            \
      RandomOp<T, Dist::kNormal>);                                                           \
  REGISTER_KERNEL_BUILDER(                                                                   \
      Name("TruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),                 \
      RandomOp<T, Dist::kTruncatedNormal>)
TACT_REGISTER_RANDOM(float);
TACT_REGISTER_RANDOM(double);
TACT_REGISTER_RANDOM(half);
TACT_REGISTER_RANDOM(bfloat16);

#define TACT_REGISTER_STATELESS(T)                                                           \
  REGISTER_KERNEL_BUILDER(                                                                   \
      Name("StatelessRandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),          \
      StatelessRandomOp<T, Dist::kUniform>);                                                 \
  REGISTER_KERNEL_BUILDER(                                                                   \
      Name("StatelessRandomNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),           \
      StatelessRandomOp<T, Dist::kNormal>);                                                  \
  REGISTER_KERNEL_BUILDER(                                                                   \
      Name("StatelessTruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),        \
      StatelessRandomOp<T, Dist::kTruncatedNormal>)
TACT_REGISTER_STATELESS(float);
TACT_REGISTER_STATELESS(double);
TACT_REGISTER_STATELESS(half);
TACT_REGISTER_STATELESS(bfloat16);
#undef TACT_REGISTER_STATELESS
#undef TACT_REGISTER_RANDOM

}  // namespace
}  // namespace tact
