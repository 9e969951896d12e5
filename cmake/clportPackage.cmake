# Installs a CMake package so that an application or an out-of-tree plugin can
# find_package(clport) against an install prefix:
#   clport::plugin_sdk  header-only plugin ABI + C++ SDK (no link to the core)
#   clport::clport      the runtime library (needs the same dependencies the core was built with)
include(CMakePackageConfigHelpers)
set(CLPORT_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/clport)
install(EXPORT clportTargets NAMESPACE clport:: DESTINATION ${CLPORT_CMAKE_INSTALL_DIR}
        COMPONENT core)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/clportConfig.cmake.in
  ${PROJECT_BINARY_DIR}/clportConfig.cmake
  INSTALL_DESTINATION ${CLPORT_CMAKE_INSTALL_DIR}
  PATH_VARS CLPORT_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/clportConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/clportConfig.cmake ${PROJECT_BINARY_DIR}/clportConfigVersion.cmake
        DESTINATION ${CLPORT_CMAKE_INSTALL_DIR} COMPONENT core)
# Imported as clport::plugin_sdk (the in-tree alias has the same name).
set_target_properties(clport_plugin_sdk PROPERTIES EXPORT_NAME plugin_sdk)

# pkg-config (clport.pc) next to the CMake package: `cc app.c $(pkg-config --cflags --libs clport)`.
# libclport is a shared library that records its own dependencies, so -lclport is the whole link.
file(RELATIVE_PATH CLPORT_PC_PREFIX_FROM_PCDIR "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" CLPORT_PC_PREFIX_FROM_PCDIR "${CLPORT_PC_PREFIX_FROM_PCDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/clport.pc.in ${PROJECT_BINARY_DIR}/clport.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/clport.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT core)
