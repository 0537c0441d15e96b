#!/usr/bin/env bash
# Installs the peers that `tact bench train` measures beside tact (Debian's
# PyTorch 1.13 with OpenBLAS). Not part of the build, the tests or the main
# job: it is large, and the benchmark reports null figures without it.
set -euo pipefail
if /usr/bin/python3 -c "import torch" 2>/dev/null; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q python3-torch python3-numpy
