// What CPU kernels need to know about an element type beyond its C++ type:
// how half and bfloat16 compute, which types are complex, and the lists of
// types a kernel template is registered for.
//
// half and bfloat16 are stored in 16 bits and computed in float, as Eigen
// computes its own half: a kernel converts each operand to float, computes,
// and rounds the result back once (ComputeType). Integer arithmetic wraps
// (two's complement), computed in the unsigned type of the same width.
#pragma once

#include <complex>
#include <string>
#include <type_traits>

#include "graph/types.h"

namespace tact {

template <typename T>
inline constexpr bool kIs16BitFloat = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <typename T>
inline constexpr bool kIsComplex = false;
template <typename R>
inline constexpr bool kIsComplex<std::complex<R>> = true;

// The type a kernel computes T in: float for half and bfloat16, T itself
// otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIs16BitFloat<T>, float, T>;

// x* for complex x; x for every other type.
template <typename T>
T Conj(const T& x) {
  if constexpr (kIsComplex<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}

// a + b, a - b and a * b for every number type: wrapping for integers
// instead of overflowing into undefined behaviour (small integers promote to
// int, so they go through the unsigned type too); in float, rounded back,
// for half and bfloat16.
template <typename T>
T WrappingAdd(T a, T b) {
  if constexpr (kIs16BitFloat<T>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T WrappingSub(T a, T b) {
  if constexpr (kIs16BitFloat<T>) {
    return T(static_cast<float>(a) - static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
T WrappingMul(T a, T b) {
  if constexpr (kIs16BitFloat<T>) {
    return T(static_cast<float>(a) * static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    // uint16 * uint16 promotes to (signed) int and may overflow it: widen first.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

}  // namespace tact

// Type lists for registering a kernel template once per type:
// TACT_CALL_NUMBER(M, args...) expands M(T, args...) for every number type.
// M ends its registration with a semicolon.
#define TACT_CALL_16BIT(M, ...) M(::tact::half, __VA_ARGS__) M(::tact::bfloat16, __VA_ARGS__)
#define TACT_CALL_FLOAT(M, ...) M(float, __VA_ARGS__) M(double, __VA_ARGS__)
#define TACT_CALL_INT(M, ...) M(int32_t, __VA_ARGS__) M(int64_t, __VA_ARGS__)
#define TACT_CALL_SMALL_INT(M, ...) \
  M(uint8_t, __VA_ARGS__) M(int8_t, __VA_ARGS__) M(int16_t, __VA_ARGS__)
#define TACT_CALL_COMPLEX(M, ...) M(::tact::complex64, __VA_ARGS__) M(::tact::complex128, __VA_ARGS__)
// half, bfloat16, float, double
#define TACT_CALL_FLOATING(M, ...) TACT_CALL_16BIT(M, __VA_ARGS__) TACT_CALL_FLOAT(M, __VA_ARGS__)
// The floating types and the signed and unsigned integers TensorFlow computes on.
#define TACT_CALL_REAL(M, ...) \
  TACT_CALL_FLOATING(M, __VA_ARGS__) TACT_CALL_INT(M, __VA_ARGS__) TACT_CALL_SMALL_INT(M, __VA_ARGS__)
#define TACT_CALL_NUMBER(M, ...) TACT_CALL_REAL(M, __VA_ARGS__) TACT_CALL_COMPLEX(M, __VA_ARGS__)
// Every type whose element is plain bytes, and then string as well.
#define TACT_CALL_POD(M, ...)                                                                  \
  TACT_CALL_NUMBER(M, __VA_ARGS__) M(bool, __VA_ARGS__) M(uint16_t, __VA_ARGS__)               \
  M(uint32_t, __VA_ARGS__) M(uint64_t, __VA_ARGS__)
#define TACT_CALL_ALL(M, ...) TACT_CALL_POD(M, __VA_ARGS__) M(std::string, __VA_ARGS__)
