#!/usr/bin/env bash
# Fails when a folder includes a higher layer (docs/layers.md): each
# top-level folder is one layer, apps/ is four (one per job), and an include
# may only point to the same or a lower one. Lowest first:
#   schemas < graph < devices < kernels < {placement, checkpoint} < actors
#     < apps/cluster < apps/train < {apps/cli, apps/bench} < examples
# Prints every upward include as file:line: include, and exits 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."

# The layer of a path: its top-level folder, or apps/<job>.
layer() {
  case "$1" in
    apps/*) local job=${1#apps/}; echo "apps/${job%%/*}" ;;
    *) echo "${1%%/*}" ;;
  esac
}

rank() {
  case "$1" in
    schemas) echo 0 ;;
    graph) echo 1 ;;
    devices) echo 2 ;;
    kernels) echo 3 ;;
    placement | checkpoint) echo 4 ;;
    actors) echo 5 ;;
    apps/cluster) echo 6 ;;
    apps/train) echo 7 ;;
    apps/cli | apps/bench) echo 8 ;;
    examples) echo 9 ;;
    *) echo "" ;;
  esac
}

bad=0
while IFS= read -r line; do
  file=${line%%:*}
  rest=${line#*:}
  lineno=${rest%%:*}
  target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${rest#*:}")
  from=$(rank "$(layer "$file")")
  to=$(rank "$(layer "$target")")
  [[ -z "$from" || -z "$to" ]] && continue
  if ((to > from)); then
    echo "$file:$lineno: includes $target, a higher layer"
    bad=1
  fi
done < <(grep -rn --include='*.h' --include='*.cc' --include='*.cu' -E '^#include "' \
           graph devices kernels placement checkpoint actors apps schemas examples 2>/dev/null || true)

if ((bad)); then
  echo "check_layers: includes point upward (docs/layers.md)" >&2
  exit 1
fi
echo "check_layers: every include points to the same or a lower layer"
