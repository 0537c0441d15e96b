// A 64-bit hash that is the same on every machine and every build, unlike
// std::hash: XXH3-64 with seed 0 (the checkpoints' checksum, checkpoint/
// checksum.h). For what must not change between runs: the seed an
// unseeded random op takes from its name, a trained model's fingerprint.
#pragma once

#include <cstdint>
#include <string_view>

namespace tact {

uint64_t StableHash(std::string_view bytes);

}  // namespace tact
