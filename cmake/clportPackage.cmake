# Installs a CMake package so that an application or an out-of-tree plugin can
# find_package(clport) against an install prefix:
#   clport::plugin_sdk  header-only plugin ABI + C++ SDK (no link to the core)
#   clport::clport      the runtime library and its public headers (no dependency to find)
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
# Two files from one template: the installed one finds its prefix from its own place (an install
# moved to another directory still works); the build tree's, ${PROJECT_BINARY_DIR}/clport.pc,
# names the headers in the source tree and the library in the build tree, so that an app can be
# built against a build without installing it (PKG_CONFIG_PATH=<build dir>).
file(RELATIVE_PATH CLPORT_PC_PREFIX_FROM_PCDIR "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" CLPORT_PC_PREFIX_FROM_PCDIR "${CLPORT_PC_PREFIX_FROM_PCDIR}")
set(CLPORT_PC_WHERE "The prefix is found\n# from this file's own place, so an install moved to another directory still works.")
set(CLPORT_PC_PREFIX "\${pcfiledir}/${CLPORT_PC_PREFIX_FROM_PCDIR}")
set(CLPORT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(CLPORT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
set(CLPORT_PC_PLUGINDIR "\${prefix}/${CLPORT_PLUGIN_INSTALL_DIR}")
set(CLPORT_PC_EXTRA_CFLAGS "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/clport.pc.in ${PROJECT_BINARY_DIR}/pkgconfig-install/clport.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig-install/clport.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT core)

set(CLPORT_PC_WHERE "This one is the\n# build tree's: headers from the source tree, the library from the build tree.")
set(CLPORT_PC_PREFIX "${PROJECT_BINARY_DIR}")
set(CLPORT_PC_LIBDIR "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
set(CLPORT_PC_INCLUDEDIR "${PROJECT_SOURCE_DIR}/core/include")
set(CLPORT_PC_PLUGINDIR "${CLPORT_PLUGIN_OUTPUT_DIR}")
set(CLPORT_PC_EXTRA_CFLAGS "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/clport.pc.in ${PROJECT_BINARY_DIR}/clport.pc @ONLY)
