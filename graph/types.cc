#include "graph/types.h"

#include <cmath>
#include <cstring>

namespace tact {

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> kAll = {
      DT_FLOAT, DT_DOUBLE,    DT_INT32,      DT_UINT8,  DT_INT16,    DT_INT8,
      DT_STRING, DT_COMPLEX64, DT_INT64,     DT_BOOL,   DT_BFLOAT16, DT_UINT16,
      DT_COMPLEX128, DT_HALF, DT_RESOURCE,   DT_UINT32, DT_UINT64};
  return kAll;
}

namespace {
const char* BaseName(DataType t) {
  switch (t) {
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_INT32: return "int32";
    case DT_UINT8: return "uint8";
    case DT_INT16: return "int16";
    case DT_INT8: return "int8";
    case DT_STRING: return "string";
    case DT_COMPLEX64: return "complex64";
    case DT_INT64: return "int64";
    case DT_BOOL: return "bool";
    case DT_BFLOAT16: return "bfloat16";
    case DT_UINT16: return "uint16";
    case DT_COMPLEX128: return "complex128";
    case DT_HALF: return "half";
    case DT_RESOURCE: return "resource";
    case DT_UINT32: return "uint32";
    case DT_UINT64: return "uint64";
    default: return nullptr;
  }
}
}  // namespace

bool IsValidDataType(DataType t) { return BaseName(BaseType(t)) != nullptr; }

std::string DataTypeString(DataType t) {
  const char* name = BaseName(BaseType(t));
  if (name == nullptr) return "invalid";
  return IsRefType(t) ? std::string(name) + "_ref" : std::string(name);
}

StatusOr<DataType> DataTypeFromString(const std::string& name) {
  std::string base = name;
  bool ref = false;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, "_ref") == 0) {
    base.resize(base.size() - 4);
    ref = true;
  }
  if (base == "float16") base = "half";
  if (base == "float32") base = "float";
  if (base == "float64") base = "double";
  for (DataType t : AllDataTypes()) {
    if (base == BaseName(t)) return ref ? MakeRefType(t) : t;
  }
  return errors::InvalidArgument("unknown dtype '", name, "'");
}

size_t DataTypeSize(DataType t) {
  switch (BaseType(t)) {
    case DT_FLOAT: return 4;
    case DT_DOUBLE: return 8;
    case DT_INT32: return 4;
    case DT_UINT8: return 1;
    case DT_INT16: return 2;
    case DT_INT8: return 1;
    case DT_COMPLEX64: return 8;
    case DT_INT64: return 8;
    case DT_BOOL: return 1;
    case DT_BFLOAT16: return 2;
    case DT_UINT16: return 2;
    case DT_COMPLEX128: return 16;
    case DT_HALF: return 2;
    case DT_UINT32: return 4;
    case DT_UINT64: return 8;
    default: return 0;
  }
}

bool DataTypeIsFloating(DataType t) {
  t = BaseType(t);
  return t == DT_HALF || t == DT_BFLOAT16 || t == DT_FLOAT || t == DT_DOUBLE;
}
bool DataTypeIsComplex(DataType t) {
  t = BaseType(t);
  return t == DT_COMPLEX64 || t == DT_COMPLEX128;
}
bool DataTypeIsInteger(DataType t) {
  switch (BaseType(t)) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
      return true;
    default:
      return false;
  }
}
bool DataTypeIsSigned(DataType t) {
  switch (BaseType(t)) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
      return true;
    default:
      return DataTypeIsFloating(t) || DataTypeIsComplex(t);
  }
}
bool DataTypeIsNumeric(DataType t) {
  return DataTypeIsFloating(t) || DataTypeIsComplex(t) || DataTypeIsInteger(t);
}

// half <-> float, written out so the graph layer needs no Eigen. NaN stays
// NaN, overflow goes to infinity, and rounding is to nearest even.
half::half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // subnormal half (or zero)
    float a;
    std::memcpy(&a, &abs, 4);
    // Scale so the half subnormal unit (2^-24) is 1, then round to nearest even.
    const float scaled = a * 16777216.0f;
    bits = static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
    return;
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  uint32_t v = abs + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  bits = static_cast<uint16_t>(sign | (v >> 13));
}

half::operator float() const {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  const uint32_t mant = bits & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    float f = static_cast<float>(mant) / 16777216.0f;  // mant * 2^-24
    std::memcpy(&x, &f, 4);
    x |= sign;
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &x, 4);
  return out;
}

bfloat16::bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a quiet NaN
    bits = static_cast<uint16_t>((x >> 16) | 0x40u);
    return;
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  bits = static_cast<uint16_t>((x + rounding) >> 16);
}

bfloat16::operator float() const {
  const uint32_t x = static_cast<uint32_t>(bits) << 16;
  float out;
  std::memcpy(&out, &x, 4);
  return out;
}

}  // namespace tact
