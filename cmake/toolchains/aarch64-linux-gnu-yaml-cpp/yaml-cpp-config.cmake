# yaml-cpp for the aarch64 cross build, when libyaml-cpp-dev:arm64 is not installed. Debian 12's
# libyaml-cpp-dev is not "Multi-Arch: same": its arm64 and amd64 packages replace each other, and
# the native build needs the amd64 one. Its headers are the same on both architectures
# (/usr/include/yaml-cpp, from the amd64 package); the arm64 library comes from
# libyaml-cpp0.7:arm64, which is co-installable. This gives the cross build the `yaml-cpp` target
# that the package's own configuration file defines.
if(TARGET yaml-cpp)
  return()
endif()
find_library(CLPORT_AARCH64_YAML_CPP NAMES libyaml-cpp.so.0.7 yaml-cpp
             PATHS /usr/lib/aarch64-linux-gnu NO_DEFAULT_PATH)
find_path(CLPORT_AARCH64_YAML_CPP_INCLUDE yaml-cpp/yaml.h PATHS /usr/include NO_DEFAULT_PATH)
if(NOT CLPORT_AARCH64_YAML_CPP OR NOT CLPORT_AARCH64_YAML_CPP_INCLUDE)
  set(yaml-cpp_FOUND FALSE)
  set(yaml-cpp_NOT_FOUND_MESSAGE
      "needs libyaml-cpp0.7:arm64 and libyaml-cpp-dev (scripts/install-deps-aarch64.sh)")
  return()
endif()
add_library(yaml-cpp SHARED IMPORTED)
set_target_properties(yaml-cpp PROPERTIES
  IMPORTED_LOCATION ${CLPORT_AARCH64_YAML_CPP}
  IMPORTED_SONAME libyaml-cpp.so.0.7
  INTERFACE_INCLUDE_DIRECTORIES ${CLPORT_AARCH64_YAML_CPP_INCLUDE})
set(YAML_CPP_LIBRARIES yaml-cpp)
set(yaml-cpp_VERSION 0.7.0)
