// Lower-case hex: of bytes in order, or of a 64-bit value as 16 digits,
// most significant first (as printf's %016llx writes it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tact {

std::string HexEncode(const void* bytes, size_t n);
std::string HexEncode(uint64_t value);

}  // namespace tact
