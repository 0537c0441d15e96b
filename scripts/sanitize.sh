#!/usr/bin/env bash
# Builds tact under sanitizers in its own folder and runs every test there:
#
#   scripts/sanitize.sh [address | undefined | address,undefined | thread] [ctest arguments...]
#
# address (the default) builds in build-asan/, undefined in build-ubsan/,
# both in build-asan-ubsan/, thread in build-tsan/. Not part of CI: on two
# cores the instrumented build takes most of an hour (UBSan doubles the
# compile time of the Eigen kernels, hence not in the default). Every
# sanitizer report ends its process (cmake/TactSanitize.cmake and the
# options below), so a report is a failed test; ctest prints it. The GPU
# code is left out: the CUDA runtime is not instrumented.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=address
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then kind=$1; shift; fi
case "$kind" in
  address) dir=build-asan ;;
  undefined) dir=build-ubsan ;;
  address,undefined) dir=build-asan-ubsan ;;
  thread) dir=build-tsan ;;
  *) echo "sanitize.sh: '$kind' is not one of address, undefined, address,undefined or thread" >&2; exit 2 ;;
esac
scripts/setup.sh
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
jobs=$(nproc 2>/dev/null || echo 2)
# -O1 -g1: line numbers in reports at half the compile time of -O2 -g.
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DTACT_CUDA=OFF -DTACT_SANITIZE="$kind"
cmake --build "$dir" -j "$jobs"
# detect_leaks: a leak is a defect too. allocator_may_return_null: tact
# asks for memory with nothrow and turns a null into ResourceExhausted
# naming the tensor (tests ask for exabytes); ASan would abort instead.
# halt_on_error is ASan's default and set for UBSan and TSan, whose
# default is to go on; UBSan skips what scripts/ubsan.supp names.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1}"
ubsan_options="print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-$ubsan_options}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
cd "$dir" && ctest --output-on-failure -j "$jobs" "$@"
