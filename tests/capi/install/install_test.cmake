# The installed package as an app sees it: `cmake --install` into a fresh prefix, then
#   cc -std=c11 -Wall -Wextra -Werror capi_example.c $(pkg-config --cflags --libs clport)
# with PKG_CONFIG_PATH pointing into that prefix (only a C compiler: no C++ flag or library
# named on the line), the same for the C++ example (engine_example.cpp, clport/engine.h), and
# both again as a CMake project through find_package(clport) (consumer/); every program run on
# the model. The public headers are at most 8 and need nothing but the standard library, and no
# dependency of libclport is in the package's link interface. Inputs: -DBUILD_DIR -DPREFIX -DCC
# -DCXX -DGENERATOR -DSOURCE -DCXX_SOURCE -DCONSUMER_DIR -DMODEL -DMALFORMED, optionally
# -DREADME_EXAMPLE (built, not run) and -DEXTRA_CFLAGS (the sanitizer build passes
# -fsanitize=..., so that the program loads the sanitizer runtime before the instrumented
# libclport needs it).
foreach(var BUILD_DIR PREFIX CC CXX GENERATOR SOURCE CXX_SOURCE CONSUMER_DIR MODEL MALFORMED)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test.cmake: -D${var}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${PREFIX})

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB_RECURSE pc_files ${PREFIX}/*/clport.pc)
list(LENGTH pc_files n_pc)
if(NOT n_pc EQUAL 1)
  message(FATAL_ERROR "expected one installed clport.pc under ${PREFIX}, found: ${pc_files}")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)
get_filename_component(libdir ${pc_dir} DIRECTORY)
if(NOT EXISTS ${PREFIX}/include/clport/clport.h)
  message(FATAL_ERROR "clport.h was not installed under ${PREFIX}/include/clport")
endif()
file(GLOB_RECURSE public_headers RELATIVE ${PREFIX}/include/clport ${PREFIX}/include/clport/*)
list(LENGTH public_headers n_headers)
if(n_headers GREATER 8)
  message(FATAL_ERROR "${n_headers} headers installed under include/clport (at most 8): ${public_headers}")
endif()
file(GLOB stray_roots ${PREFIX}/include/clport_plugin ${PREFIX}/include/clport_common)
if(stray_roots)
  message(FATAL_ERROR "plugin headers installed outside include/clport_plugin_sdk: ${stray_roots}")
endif()
file(GLOB_RECURSE targets_files ${PREFIX}/*/clportTargets.cmake)
foreach(targets_file IN LISTS targets_files)
  file(READ ${targets_file} targets_text)
  string(REGEX MATCH "set_target_properties\\(clport::clport PROPERTIES[^)]*\\)" clport_props "${targets_text}")
  if(clport_props STREQUAL "")
    message(FATAL_ERROR "${targets_file} defines no clport::clport")
  endif()
  if(clport_props MATCHES "INTERFACE_LINK_LIBRARIES")
    message(FATAL_ERROR "clport::clport passes libraries on to its consumers:\n${clport_props}")
  endif()
endforeach()

# The literal command line an app would type; the run-time path to the library comes from an
# rpath into the prefix (an app installed elsewhere uses its loader's search path instead).
set(program ${PREFIX}/capi_example)
set(line "${CC} -std=c11 -Wall -Wextra -Werror -Wpedantic ${EXTRA_CFLAGS} ${SOURCE} -o ${program} $(pkg-config --cflags --libs clport) -Wl,-rpath,${libdir}")
message(STATUS "PKG_CONFIG_PATH=${pc_dir} ${line}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} sh -c "${line}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling against the installed package failed (${rc}):\n${out}\n${err}")
endif()
# The README's example, as C99: it must build against the installed package too.
if(DEFINED README_EXAMPLE)
  set(line "${CC} -std=c99 -Wall -Wextra -Werror -Wpedantic ${EXTRA_CFLAGS} ${README_EXAMPLE} -o ${PREFIX}/readme_example $(pkg-config --cflags --libs clport)")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} sh -c "${line}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the README example does not build against the installed package (${rc}):\n${out}\n${err}")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} pkg-config --cflags --libs clport
                OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(flags MATCHES "std=c\\+\\+|stdc\\+\\+|-lspdlog|-lyaml")
  message(FATAL_ERROR "pkg-config --cflags --libs clport names C++ flags or libraries: ${flags}")
endif()

function(run_example)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}\n${err}")
  endif()
  if(err MATCHES "Sanitizer|runtime error")
    message(FATAL_ERROR "${ARGN}: sanitizer report:\n${err}")
  endif()
endfunction()
run_example(${program} ${MODEL} ${MALFORMED})

# The C++ example through pkg-config: the C++ compiler, and still no library but clport named.
set(cxx_program ${PREFIX}/engine_example)
set(line "${CXX} -std=c++17 -Wall -Wextra -Werror ${EXTRA_CFLAGS} ${CXX_SOURCE} -o ${cxx_program} $(pkg-config --cflags --libs clport) -Wl,-rpath,${libdir}")
message(STATUS "PKG_CONFIG_PATH=${pc_dir} ${line}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} sh -c "${line}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling the C++ example against the installed package failed (${rc}):\n${out}\n${err}")
endif()
run_example(${cxx_program} ${MODEL})

# Both examples as a CMake project that finds the install (and nothing else) by find_package.
set(consumer_build ${PREFIX}/consumer-build)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_build} -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${PREFIX}
                        -DCMAKE_C_COMPILER=${CC} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
                        "-DCMAKE_C_FLAGS=${EXTRA_CFLAGS}" "-DCMAKE_CXX_FLAGS=${EXTRA_CFLAGS}"
                        -DEXAMPLES_DIR=${CMAKE_CURRENT_LIST_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the find_package(clport) project failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${consumer_build}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the find_package(clport) project failed (${rc}):\n${out}\n${err}")
endif()
run_example(${consumer_build}/capi_example ${MODEL} ${MALFORMED})
run_example(${consumer_build}/engine_example ${MODEL})
file(REMOVE_RECURSE ${PREFIX})  # ~70 MiB of library copies
