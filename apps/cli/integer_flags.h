// Integer flags too large for 64 bits are refused, not read as the largest
// 64-bit value.
//
// CLI11 2.1 converts an integer option with strtoll / strtoull, which give
// the largest value for text beyond 64 bits, and does not look: `tact train
// --seed 18446744073709551616` trained with seed 2^64 - 1 and said nothing,
// `--max-steps 99999999999999999999` ran as if it were not given. (A value
// too large for a 32-bit option is already refused: "Could not convert".)
#pragma once

#include <CLI/CLI.hpp>

namespace tact::apps {

// Checks the text of every integer option ("INT" and "UINT" types) of `app`
// and of its subcommands, at every depth.
void RefuseIntegersBeyond64Bits(CLI::App* app);

// For an integer option that must be 0 or more. CLI11's NonNegativeNumber
// said "Value -5 not in range 0.000000 to 1797693134862315708..." (309
// digits of the largest double); this says "must be >= 0, got -5".
CLI::Validator NonNegativeInteger();

}  // namespace tact::apps
