# Cross build for 64-bit ARM Linux on a Debian (bookworm) amd64 host: the compilers of
# crossbuild-essential-arm64 and the dependencies' arm64 -dev packages installed side by side
# (multiarch, scripts/install-deps-aarch64.sh). Test binaries run under qemu-user, so ctest and
# gtest_discover_tests work as on a native build:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: the arm64 libraries, CMake packages and .pc files live in /usr/lib/aarch64-linux-gnu;
# headers and arch-independent packages (nlohmann-json, CLI11) in /usr/include and /usr/share.
# With the architecture set, find_package / find_library search the arm64 directories only.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config (PCRE2): the arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
# qemu-user runs the arm64 binaries (tests, gtest_discover_tests). The arm64 loader and libc are
# the multiarch ones (/lib/ld-linux-aarch64.so.1), so no -L prefix is needed. qemu's default CPU
# in user mode is `max` (NEON, SVE, SVE2 with 512-bit vectors); the QEMU_CPU environment variable
# picks another at run time, e.g. QEMU_CPU=cortex-a76 (NEON only) or
# QEMU_CPU=max,sve-default-vector-length=16 (SVE2 at 128 bits, as ARMv9 phone cores have).
find_program(CLPORT_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${CLPORT_QEMU_AARCH64})
# yaml-cpp: Debian's arm64 -dev package conflicts with the amd64 one (see the file named here).
if(NOT EXISTS /usr/lib/aarch64-linux-gnu/cmake/yaml-cpp/yaml-cpp-config.cmake)
  set(yaml-cpp_DIR ${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu-yaml-cpp)
endif()
