#!/usr/bin/env bash
# Packs a built tact for scripts/gpu_check.sh --no-build on a GPU machine
# that has CUDA but not tact's packages (CAF, Cap'n Proto, HDF5, OpenBLAS,
# spdlog) and cannot install them: the lent GPU machines are such. Into
# .gpu_bundle/ (ignored by git) go
#   tact-gpu.tar.xz   apps/tact, tests/tact_gpu_tests and lib/: every shared
#                     library they load except the C and C++ runtimes and
#                     CUDA's own libraries, which the GPU machine has;
#   fashion-mnist/    the data set, for the training benchmark.
# On the GPU machine, from the repository's root:
#   mkdir -p /tmp/tact-gpu && tar -xJf .gpu_bundle/tact-gpu.tar.xz -C /tmp/tact-gpu
#   (with CUDA's and cuDNN's folders on LD_LIBRARY_PATH too: docs/gpu.md)
#   LD_LIBRARY_PATH=/tmp/tact-gpu/lib TACT_GPU_BUILD=/tmp/tact-gpu \
#     TACT_DATA=.gpu_bundle/fashion-mnist scripts/gpu_check.sh --no-build
# TACT_GPU_BUILD here names the build to pack (default: build, whose CUDA
# code is built for sm_80 and sm_90).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TACT_GPU_BUILD:-build}
out=.gpu_bundle
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/apps" "$stage/tests" "$stage/lib" "$out"
cp "$build/apps/tact" "$stage/apps/"
cp "$build/tests/tact_gpu_tests" "$stage/tests/"
# The C/C++ runtimes stay: the GPU machine's are as new or newer. CUDA's
# libraries stay: they must match its driver.
keep='^(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^ ]*|linux-vdso|libcuda|libcudart|libcublas|libcublasLt|libcudnn[^ ]*)\.so'
for bin in "$stage/apps/tact" "$stage/tests/tact_gpu_tests"; do
  ldd "$bin" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $keep ]] && continue
  cp -L "$path" "$stage/lib/$name"
done
tar -C "$stage" -cJf "$out/tact-gpu.tar.xz" apps tests lib
data=${TACT_DATA:-/usr/share/datasets/fashion-mnist}
mkdir -p "$out/fashion-mnist"
cp "$data"/*.gz "$out/fashion-mnist/"
du -sh "$out/tact-gpu.tar.xz" "$out/fashion-mnist"
