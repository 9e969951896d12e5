#!/usr/bin/env bash
# Installs every build and test dependency of clport from Debian packages.
# Nothing here links libOpenCL: ocl-icd-opencl-dev is only for the Khronos headers and for the
# ICD loader that tests use as "a library that exports cl* directly".
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build pkg-config git python3 python3-pip python3-venv curl \
  opencl-c-headers opencl-clhpp-headers ocl-icd-libopencl1 ocl-icd-opencl-dev clinfo \
  pocl-opencl-icd libpocl2 \
  libboost-dev libboost-filesystem-dev \
  libyaml-cpp-dev libspdlog-dev libfmt-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  libcli11-dev nlohmann-json3-dev libssl-dev libpcre2-dev libhwy-dev libcpp-httplib-dev \
  libclblast1 oclgrind clang >/dev/null
