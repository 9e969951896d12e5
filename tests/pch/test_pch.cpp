// Holds the precompiled header the GoogleTest binaries reuse (tests/CMakeLists.txt): a target
// needs at least one source for CMake to build its PCH.
int clport_test_pch_anchor = 0;
