#include "graph/stable_hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tact {

uint64_t StableHash(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace tact
