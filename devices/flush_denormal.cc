#include "devices/flush_denormal.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace tact {
namespace {

#if defined(__SSE__)
constexpr unsigned kFlushToZero = 0x8000;     // MXCSR.FTZ: denormal results become 0
constexpr unsigned kDenormalsAreZero = 0x40;  // MXCSR.DAZ: denormal inputs read as 0
constexpr unsigned kFlushBits = kFlushToZero | kDenormalsAreZero;
#endif

}  // namespace

void FlushDenormalsOnThisThread() {
#if defined(__SSE__)
  _mm_setcsr(_mm_getcsr() | kFlushBits);
#endif
}

ScopedFlushDenormal::ScopedFlushDenormal() {
#if defined(__SSE__)
  saved_ = _mm_getcsr();
  if ((saved_ & kFlushBits) != kFlushBits) {
    _mm_setcsr(saved_ | kFlushBits);
    changed_ = true;
  }
#endif
}

ScopedFlushDenormal::~ScopedFlushDenormal() {
#if defined(__SSE__)
  if (changed_) _mm_setcsr(saved_);
#endif
}

}  // namespace tact
