#!/usr/bin/env bash
# The main job: installs what is missing, builds, builds the paper's
# Figure 1 graph through the builder API and the Cap'n Proto GraphDef and
# runs it in a Session, then benchmarks the MatMul kernel against a direct
# BLAS call, the executor's per-node and per-Run costs and a tensor crossing
# between two worker processes beside raw TCP, and trains the
# 784-256-128-10 MLP on Fashion-MNIST (autodiff, Adam) for 10 epochs,
# data-parallel on a local cluster of one parameter server and two worker
# processes (paper 3.3 and 7).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build/apps/tact example
build/apps/tact bench matmul --n 1024 --threads 2 --json
build/apps/tact bench executor --nodes 1000 --json
build/apps/tact bench sendrecv --bytes 67108864 --json
build/apps/tact train --model mlp --epochs 10 --threads 1 --ps 1 --workers 2 --mode sync --json
