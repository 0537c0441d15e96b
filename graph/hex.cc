#include "graph/hex.h"

namespace tact {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

}  // namespace

std::string HexEncode(const void* bytes, size_t n) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

std::string HexEncode(uint64_t value) {
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) s[i] = kDigits[value & 15];
  return s;
}

}  // namespace tact
