#!/usr/bin/env bash
# The cnn's accuracy claim, measured as a user measures it (nightly, not in
# CI: about 10 minutes on two cores): `tact train --model cnn --epochs 10`
# with every default (Adam 1e-3, dropout, batch 100, seed 1), printing the
# test accuracy after each epoch, then failing unless the last reaches
# MIN_ACCURACY (default 0.91). Measured in session 12: 0.9165 after epoch
# 10, 0.9245 at its best (epoch 8); the last epochs swing by +-0.005, so the
# gate sits below them. CI keeps a short version: tests/apps/trainer_test.cc,
# TheCnnLearnsFromASubsetToAStatedAccuracy.
#
#   scripts/accuracy.sh [EPOCHS] [-- more tact train flags]
#   MODEL=cnn_bn MIN_ACCURACY=0.9 scripts/accuracy.sh 3   # another model
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=10
if [ $# -gt 0 ] && [ "$1" != "--" ]; then epochs=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
min=${MIN_ACCURACY:-0.91}
model=${MODEL:-cnn}
tact=build/apps/tact
[ -x "$tact" ] || scripts/build.sh > /dev/null
out=$(mktemp -t tact_accuracy_XXXXXX)
trap 'rm -f "$out"' EXIT
"$tact" train --model "$model" --epochs "$epochs" --threads 2 --json "$@" | tee "$out"
last=$(sed -n 's/.*"test_accuracy":\([0-9.]*\).*/\1/p' "$out" | tail -1)
if [ -z "$last" ]; then
  echo "accuracy: no JSON line with test_accuracy" >&2
  exit 1
fi
if awk -v a="$last" -v m="$min" 'BEGIN { exit !(a >= m) }'; then
  echo "accuracy: $model, $last after $epochs epochs, at or above $min"
else
  echo "accuracy: $model, $last after $epochs epochs, below $min" >&2
  exit 1
fi
