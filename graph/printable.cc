#include "graph/printable.h"

#include <cstdint>

namespace tact {
namespace {

// The length of the printable UTF-8 character at the front of `s`, or 0
// when its first byte starts none (a control character, a stray
// continuation byte, an overlong or cut-off sequence, a surrogate).
size_t PrintableCharLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(0);
  if (b0 < 0x20 || b0 == 0x7f) return 0;
  if (b0 < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
    cp = b0 & 0x1fu;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    cp = b0 & 0x0fu;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    cp = b0 & 0x07u;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
  const bool c1_control = cp >= 0x80 && cp <= 0x9f;
  if (overlong || surrogate || c1_control || cp > 0x10ffff) return 0;
  return n;
}

}  // namespace

bool IsPrintableText(std::string_view s) {
  while (!s.empty()) {
    const size_t n = PrintableCharLength(s);
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return true;
}

std::string Printable(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    size_t n = PrintableCharLength(s);
    if (n > 0) {
      out.append(s.substr(0, n));
    } else {
      const auto b = static_cast<uint8_t>(s[0]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
      n = 1;
    }
    s.remove_prefix(n);
  }
  return out;
}

}  // namespace tact
