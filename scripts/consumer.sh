#!/usr/bin/env bash
# Installs the built tact (build/) into build/install, checks that the
# installed headers pull in CAF only where docs/package.md says they do,
# builds the consumer example (examples/consumer) against the installed
# package with find_package(tact), and runs it. scripts/test.sh, and so
# CI, runs it after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
prefix=$PWD/build/install
rm -rf "$prefix"
cmake --install build --prefix "$prefix" > build/install.log

# The runtime's own actor headers; every other header is CAF-free.
caf_headers=" actors/actor_scheduler.h actors/caf_thread_scope.h actors/cluster_connect.h actors/cluster_gate.h
  actors/endpoints.h actors/inline_unit.h actors/master_handle.h actors/master_run_call.h
  actors/master_state.h actors/messages.h actors/rendezvous_mgr.h actors/supervisor.h actors/task_actor.h actors/wire_auth.h
  actors/wire_caf.h "
bad=0
cd "$prefix/include/tact"
for h in $(find . -name '*.h' | sed 's#^\./##' | sort); do
  [[ "$caf_headers" == *" $h"[[:space:]]* ]] && continue
  if echo "#include \"$h\"" | g++ -std=c++20 -I. -x c++ -M - 2>/dev/null | grep -q '/caf/'; then
    echo "consumer: $h pulls in CAF (docs/package.md)"
    bad=1
  fi
done
cd - > /dev/null
((bad == 0))

launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S examples/consumer -B build/consumer -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" > /dev/null
cmake --build build/consumer -j "$(nproc 2>/dev/null || echo 2)"
build/consumer/supervised_training
