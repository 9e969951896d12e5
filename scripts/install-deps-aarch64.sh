#!/usr/bin/env bash
# Installs what the aarch64 cross build needs (scripts/cross-aarch64.sh), beside the native
# dependencies of install-deps.sh: Debian's cross compilers (g++-aarch64-linux-gnu, the compilers
# of crossbuild-essential-arm64 without its dpkg-cross and a dozen Perl packages), qemu-user to
# run the arm64 test binaries, and the arm64 packages of the libraries (multiarch, "Multi-Arch:
# same", so they live next to the amd64 ones). Nothing is removed (--no-remove): in particular
# libyaml-cpp-dev is not co-installable across architectures, so the amd64 one stays and the cross
# build takes the arm64 library from libyaml-cpp0.7:arm64
# (cmake/toolchains/aarch64-linux-gnu-yaml-cpp/). No OpenCL package for arm64: nothing links
# libOpenCL, and PoCL's arm64 package cannot be installed beside the amd64 one (apt would remove
# the host's PoCL, clang, gcc and binutils).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
packages=(g++-aarch64-linux-gnu qemu-user
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev opencl-c-headers
  libyaml-cpp0.7:arm64 libhwy-dev:arm64 libspdlog-dev:arm64 libfmt-dev:arm64
  libboost-dev:arm64 libboost-filesystem-dev:arm64 libssl-dev:arm64 libpcre2-dev:arm64
  libgtest-dev:arm64 libgmock-dev:arm64)
# Everything already there (a second run, or a machine set up by hand): no apt-get update.
all_installed() {
  dpkg --print-foreign-architectures | grep -qx arm64 || return 1
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null | grep -c '^ii')" \
    -eq "${#packages[@]}" ]
}
if all_installed; then exit 0; fi
dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends --no-remove "${packages[@]}" >/dev/null
