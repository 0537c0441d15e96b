#!/usr/bin/env bash
# Installs what is missing, checks that no include points to a higher
# layer, builds, runs every test with ctest, then installs the package and
# builds and runs the example that uses it (scripts/consumer.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/check_layers.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)")
scripts/consumer.sh
