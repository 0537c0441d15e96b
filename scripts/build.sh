#!/usr/bin/env bash
# Configures and builds tact in build/ (Release, ccache when present).
# Extra arguments go to cmake, e.g. scripts/build.sh -DTACT_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths under the checkout reach ccache relative to the build folder, so a
# fresh clone elsewhere (CI's) hits the objects an earlier build cached.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$jobs"
