#!/usr/bin/env bash
# Installs every Debian package that tact's build, tests and main job need.
# Idempotent: packages already present are left alone, and `apt-get update`
# runs only when something is missing. CUDA 13, cuBLAS and cuDNN are expected
# preinstalled under /usr/local/cuda; without them the build leaves GPU code out.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache
  libcaf-dev
  libcapnp-dev capnproto libssl-dev
  openssl  # the TLS tests make their certificates with it
  libhdf5-dev hdf5-tools
  python3-h5py  # the checkpoint tests read tact's files with h5py, the reference reader
  python3-protobuf  # the summary tests read tact's events files with protobuf's own parser
  libeigen3-dev
  libopenblas-dev
  libgoogle-perftools-dev
  libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev libxxhash-dev zlib1g-dev
  dataset-fashion-mnist
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
