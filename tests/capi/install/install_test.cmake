# The installed package as an app sees it: `cmake --install` into a fresh prefix, then
#   cc -std=c11 -Wall -Wextra -Werror capi_example.c $(pkg-config --cflags --libs clport)
# with PKG_CONFIG_PATH pointing into that prefix (only a C compiler: no C++ flag or library
# named on the line), and the program run on the model. Inputs: -DBUILD_DIR -DPREFIX -DCC
# -DSOURCE -DMODEL -DMALFORMED, optionally -DREADME_EXAMPLE (built, not run) and -DEXTRA_CFLAGS
# (the sanitizer build passes -fsanitize=..., so that the program loads the sanitizer runtime
# before the instrumented libclport needs it).
foreach(var BUILD_DIR PREFIX CC SOURCE MODEL MALFORMED)
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

execute_process(COMMAND ${program} ${MODEL} ${MALFORMED} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "capi_example failed (${rc}):\n${err}")
endif()
if(err MATCHES "Sanitizer|runtime error")
  message(FATAL_ERROR "capi_example: sanitizer report:\n${err}")
endif()
file(REMOVE_RECURSE ${PREFIX})  # ~70 MiB of library copies
