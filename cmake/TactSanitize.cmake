# Builds tact under sanitizers (TACT_SANITIZE = "" | address | undefined |
# address,undefined | thread), for scripts/sanitize.sh: the test suite run under AddressSanitizer and
# UndefinedBehaviorSanitizer finds use-after-free, overflows and undefined
# arithmetic that a Release run passes over, and ThreadSanitizer finds data
# races that show up only as an intermittent failure.
#
# Every error ends the process, so a test that meets one fails rather than
# printing a report nobody reads: AddressSanitizer's always do, and
# scripts/sanitize.sh runs UndefinedBehaviorSanitizer and ThreadSanitizer
# with halt_on_error=1. UBSan's checks stay recoverable all the same: only
# a recoverable check honours a suppression, and scripts/ubsan.supp must
# skip a null reference that CAF's own headers bind in every actor spawned
# without arguments (with -fno-sanitize-recover every such test aborted).
# tcmalloc is left out: the sanitizers bring their own malloc, and two
# would mix heaps.
set(TACT_SANITIZE "" CACHE STRING "Sanitizers to build with, as -fsanitize takes them (empty: none)")

if(TACT_SANITIZE)
  set(tact_sanitize_flags -fsanitize=${TACT_SANITIZE} -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${tact_sanitize_flags}>")
  add_link_options(-fsanitize=${TACT_SANITIZE})
  set(TACT_TCMALLOC OFF CACHE STRING "Link tcmalloc_minimal into tact's programs: AUTO, ON or OFF" FORCE)
  message(STATUS "tact: built with -fsanitize=${TACT_SANITIZE}")
endif()
