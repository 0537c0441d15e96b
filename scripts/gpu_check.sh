#!/usr/bin/env bash
# The prepared GPU check (docs/gpu.md): on a machine with a CUDA GPU and
# tact's packages installed, builds what the check needs with CUDA for that
# GPU, runs the GPU tests, then prints one JSON line per benchmark:
#   - the MatMul GPU kernel beside a direct cublasGemmEx of the same shapes,
#     fp32 and bf16, n = 4096 and 8192 (goal: at least 0.9x cuBLAS);
#   - the cnn training on one GPU beside the 2-thread CPU step (goal: 10x).
# It stops at the first failure. Meant to finish within 8 minutes on a
# 16-core machine from a fresh clone; ccache is used when present.
#
#   scripts/gpu_check.sh              build into build-gpu/, then check
#   scripts/gpu_check.sh --no-build   check with the binaries already in build-gpu/
# TACT_GPU_BUILD names another build folder, TACT_DATA the Fashion-MNIST
# files' folder. On a GPU machine without tact's packages, run it on a
# bundle made here (scripts/gpu_bundle.sh says how).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TACT_GPU_BUILD:-build-gpu}

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU here (nvidia-smi finds none); nothing to check" >&2
  exit 1
fi
nvidia-smi -L

if [[ "${1:-}" != "--no-build" ]]; then
  # Only the GPU the check runs on: one architecture halves nvcc's work.
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTACT_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${cap:-90}"
  cmake --build "$build" -j "$(nproc)" --target tact tact_gpu_tests
fi

start=$(date +%s)
tests_log=$(mktemp)
set +e
"$build/tests/tact_gpu_tests" 2>&1 | tee "$tests_log"
tests_rc=${PIPESTATUS[0]}
set -e
# Each test's own line ends with its time; the summary repeats the names.
passed=$(grep -c '^\[       OK \] .*([0-9]* ms)$' "$tests_log" || true)
failed=$(grep -c '^\[  FAILED  \] .*([0-9]* ms)$' "$tests_log" || true)
skipped=$(grep -c '^\[  SKIPPED \] .*([0-9]* ms)$' "$tests_log" || true)
echo "{\"gpu_tests\":{\"exit\":$tests_rc,\"passed\":$passed,\"failed\":$failed,\"skipped\":$skipped,\"seconds\":$(( $(date +%s) - start ))}}"
rm -f "$tests_log"
[[ $tests_rc -eq 0 ]] || exit "$tests_rc"

for dtype in float bfloat16; do
  for n in 4096 8192; do
    "$build/apps/tact" bench matmul --device gpu --dtype "$dtype" --n "$n" --runs 5 --reps 10 --json
  done
done
# The PyTorch peer is a CPU one (Debian's python3-torch): left out here.
"$build/apps/tact" bench train --model cnn --gpus 1 --steps 200 --python /nonexistent \
  --data "${TACT_DATA:-/usr/share/datasets/fashion-mnist}"
