// DataType: the element types of the paper's tensors, and the C++ types that
// hold them. Numbering follows TensorFlow's DataType so that graphs and
// checkpoints are easy to compare with its tools.
//
// A "ref" type (DT_FLOAT_REF = DT_FLOAT + kDataTypeRefOffset) is the type of
// a Variable's output: a reference to persistent, mutable state. A ref output
// may feed a ref input (Assign) or, dereferenced, a plain input of its base
// type (MatMul reading W).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/status.h"

namespace tact {

enum DataType : int {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_COMPLEX64 = 8,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_BFLOAT16 = 14,
  DT_UINT16 = 17,
  DT_COMPLEX128 = 18,
  DT_HALF = 19,
  DT_RESOURCE = 20,
  DT_UINT32 = 22,
  DT_UINT64 = 23,
};
constexpr int kDataTypeRefOffset = 100;

inline bool IsRefType(DataType t) { return t > kDataTypeRefOffset; }
inline DataType MakeRefType(DataType t) {
  return IsRefType(t) ? t : static_cast<DataType>(t + kDataTypeRefOffset);
}
inline DataType BaseType(DataType t) {
  return IsRefType(t) ? static_cast<DataType>(t - kDataTypeRefOffset) : t;
}

// Every value type (no refs, no DT_INVALID), in enum order.
const std::vector<DataType>& AllDataTypes();
bool IsValidDataType(DataType t);  // a value type or the ref of one

// "float", "int32", "float_ref", ... ("invalid" for an unknown value).
std::string DataTypeString(DataType t);
// Inverse of DataTypeString; accepts "half" and "float16" alike.
StatusOr<DataType> DataTypeFromString(const std::string& name);

// Bytes per element; 0 for DT_STRING, DT_RESOURCE and invalid types.
size_t DataTypeSize(DataType t);

bool DataTypeIsFloating(DataType t);  // half, bfloat16, float, double
bool DataTypeIsComplex(DataType t);
bool DataTypeIsInteger(DataType t);   // signed and unsigned
bool DataTypeIsSigned(DataType t);
// Float, complex and integer types: those arithmetic is defined on.
bool DataTypeIsNumeric(DataType t);

// IEEE 754 binary16, stored as its bits. Arithmetic goes through float.
struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float f);
  explicit operator float() const;
};

// The upper 16 bits of an IEEE float32 (round to nearest even on conversion).
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f);
  explicit operator float() const;
};

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// DataTypeToEnum<T>::value is the DataType that holds C++ type T.
template <typename T> struct DataTypeToEnum;
#define TACT_MATCH_TYPE_AND_ENUM(TYPE, ENUM) \
  template <> struct DataTypeToEnum<TYPE> { static constexpr DataType value = ENUM; }
TACT_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
TACT_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
TACT_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
TACT_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
TACT_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
TACT_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
TACT_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
TACT_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
TACT_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
TACT_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
TACT_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
TACT_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
TACT_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
TACT_MATCH_TYPE_AND_ENUM(half, DT_HALF);
TACT_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
TACT_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
#undef TACT_MATCH_TYPE_AND_ENUM

// Calls fn.template operator()<T>() with the C++ type of `dtype`, for every
// value type but DT_RESOURCE. Returns false if dtype has no C++ type.
template <typename Fn>
bool VisitDataType(DataType dtype, Fn&& fn) {
  switch (BaseType(dtype)) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_UINT8: fn.template operator()<uint8_t>(); return true;
    case DT_INT16: fn.template operator()<int16_t>(); return true;
    case DT_INT8: fn.template operator()<int8_t>(); return true;
    case DT_STRING: fn.template operator()<std::string>(); return true;
    case DT_COMPLEX64: fn.template operator()<complex64>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    case DT_BOOL: fn.template operator()<bool>(); return true;
    case DT_BFLOAT16: fn.template operator()<bfloat16>(); return true;
    case DT_UINT16: fn.template operator()<uint16_t>(); return true;
    case DT_COMPLEX128: fn.template operator()<complex128>(); return true;
    case DT_HALF: fn.template operator()<half>(); return true;
    case DT_UINT32: fn.template operator()<uint32_t>(); return true;
    case DT_UINT64: fn.template operator()<uint64_t>(); return true;
    default: return false;
  }
}

}  // namespace tact
