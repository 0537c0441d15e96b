// Whether this test binary was built under AddressSanitizer or
// ThreadSanitizer (scripts/sanitize.sh). A few tests measure what those
// change on purpose: resident memory (freed blocks wait in a quarantine),
// how long a kernel takes (every access is checked), or the address space
// (the shadow memory maps terabytes). They skip there, saying why.
#pragma once

#include <gtest/gtest.h>

namespace tact::test_util {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif

}  // namespace tact::test_util

// In a test body: skips the test in a sanitizer build, giving `why`.
// (The empty branch keeps a caller's `else` from binding to this `if`.)
#define TACT_SKIP_UNDER_SANITIZER(why)        \
  if (!::tact::test_util::kUnderSanitizer) { \
  } else                                     \
    GTEST_SKIP() << "built under a sanitizer: " << why
