# Installs the already-built tree into a fresh prefix, builds tests/plugins/out_of_tree_plugin
# against that prefix only (find_package(clport)), drops the result into the install's plugin
# directory and checks that the installed `clport devices` loads, binds and uses it. Nothing of
# clport is rebuilt.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DBAD_PLUGIN=... -P out_of_tree_test.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(NOT EXISTS ${prefix}/lib/cmake/clport/clportConfig.cmake)
  message(FATAL_ERROR "install has no lib/cmake/clport/clportConfig.cmake")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/oot-build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/oot-build)
file(COPY ${WORK_DIR}/oot-build/libclport_oot.so ${WORK_DIR}/oot-build/libclport_oot_shared.so
     DESTINATION ${prefix}/lib/clport/plugins)
# A broken neighbour (wrong ABI major) must be refused with its reason, not break the others.
file(COPY ${BAD_PLUGIN} DESTINATION ${prefix}/lib/clport/plugins)

# Only the installed copy may be found: no search path from the environment.
set(ENV{CLPORT_PLUGIN_PATH} "")
set(ENV{CLPORT_CONFIG} "")
run(${prefix}/bin/clport devices)
set(devices_out "${out}")
message(STATUS "clport devices:\n${out}")
if(NOT out MATCHES "oot +score 500 +bound")
  message(FATAL_ERROR "the installed clport did not bind the out-of-tree plugin:\n${out}\n${err}")
endif()
if(NOT out MATCHES "refused plugin files:[^\n]*\n[^\n]*libbad_abi.so: plugin ABI 99.7, this clport speaks ABI")
  message(FATAL_ERROR "the wrong-ABI plugin was not reported as refused:\n${out}")
endif()
if(NOT out MATCHES "SCALE +oot")
  message(FATAL_ERROR "SCALE is not served by the out-of-tree plugin:\n${out}")
endif()
# And it is used: its SCALE kernel runs and matches the CPU reference.
run(${prefix}/bin/clport conformance --plugin oot --filter scale --seed 1)
if(NOT out MATCHES "scale +f32 [^\n]* pass" OR NOT out MATCHES "([1-9][0-9]*) passed, 0 failed")
  message(FATAL_ERROR "the out-of-tree plugin's SCALE did not pass conformance:\n${out}\n${err}")
endif()
# The plugin on the installed launch code: bound above the generic plugin, exporting only its
# entry point, and its shared-kernel mat-muls match the CPU reference.
if(NOT devices_out MATCHES "oot_shared +score 20 +bound")
  message(FATAL_ERROR "the installed clport did not bind the plugin built on clport::plugin_common:\n${devices_out}")
endif()
run(nm -D --defined-only ${prefix}/lib/clport/plugins/libclport_oot_shared.so)
string(REGEX MATCHALL "[^\n]+" exported "${out}")
list(LENGTH exported n_exported)
if(NOT n_exported EQUAL 1 OR NOT out MATCHES "clport_plugin_entry")
  message(FATAL_ERROR "libclport_oot_shared.so should export clport_plugin_entry alone:\n${out}")
endif()
run(${prefix}/bin/clport conformance --plugin oot_shared --filter mul_mat --seed 1)
if(NOT out MATCHES "([1-9][0-9]*) passed, 0 failed")
  message(FATAL_ERROR "the plugin on clport::plugin_common did not pass the mat-mul conformance:\n${out}\n${err}")
endif()
# Settings reach the installed plugins typed: an enum declared through the plain ABI struct, the
# shared tuning's switches through clport::plugin_common; a number given for an enum is refused
# with its place in the file.
file(WRITE ${WORK_DIR}/oot_one.yaml "local_size: one\n")
run(${prefix}/bin/clport conformance --plugin oot --filter scale --seed 1 --settings ${WORK_DIR}/oot_one.yaml)
if(NOT out MATCHES "([1-9][0-9]*) passed, 0 failed")
  message(FATAL_ERROR "the out-of-tree plugin's SCALE with local_size: one did not pass:\n${out}\n${err}")
endif()
file(WRITE ${WORK_DIR}/int_dot_off.yaml "int_dot: off\n")
run(${prefix}/bin/clport conformance --plugin oot_shared --filter "mul_mat q4_0" --seed 1
    --settings ${WORK_DIR}/int_dot_off.yaml)
if(NOT out MATCHES "([1-9][0-9]*) passed, 0 failed")
  message(FATAL_ERROR "the plugin on clport::plugin_common did not pass with int_dot: off:\n${out}\n${err}")
endif()
file(WRITE ${WORK_DIR}/int_dot_number.yaml "q8a_rows: 8\nint_dot: 1\n")
execute_process(COMMAND ${prefix}/bin/clport conformance --plugin oot_shared --filter "mul_mat q4_0"
                        --settings ${WORK_DIR}/int_dot_number.yaml
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "int_dot_number.yaml:2:1: settings of plugin 'oot_shared': 'int_dot' must be one of off, on, auto, got '1'")
  message(FATAL_ERROR "an enum setting given a number was not refused with its place (${rc}):\n${out}\n${err}")
endif()
message(STATUS "out-of-tree plugins installed, bound and used")
