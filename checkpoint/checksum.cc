#include "checkpoint/checksum.h"

// Inlined rather than linked: compiled here with -march=x86-64-v3 it takes
// the AVX2 path, where Debian's shared library is built for SSE2.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>

namespace tact {

uint64_t TensorChecksum(const Tensor& t) {
  if (t.dtype() != DT_STRING) return XXH3_64bits(t.raw_data(), t.TotalBytes());
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const uint64_t n = s[i].size();
    XXH3_64bits_update(state, &n, sizeof(n));
    XXH3_64bits_update(state, s[i].data(), s[i].size());
  }
  const uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

std::string ChecksumHex(uint64_t checksum) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(checksum));
  return buf;
}

}  // namespace tact
