# clport_vendor_oclgrind_test(<plugin> <preset> [NAME <test>] [TOLERATE_API_ERRORS] [OPTIMISED_ONLY]
#                             [REQUIRE <regex>] [FILTER <cases>] [ENVIRONMENT VAR=value ...])
# The plugin's mul_mat cases (small shapes; FILTER: another `clport conformance --filter`) under oclgrind behind the spoofed identity <preset>
# (tests/fakecl forwarding to oclgrind's runtime). Registers <test> (default
# conformance.<plugin>.oclgrind) with the checks of conformance.generic.oclgrind: built with
# -cl-opt-disable, --uninitialized --check-api --data-races (tests/conformance/CMakeLists.txt
# says why -O0: oclgrind 21.10's uninitialised-value checker breaks on optimised IR), and
# <test>.optimised, the optimised build under the other checks. OPTIMISED_ONLY registers only
# <test> as the optimised run, for paths the uninitialised checker cannot follow (give the reason
# at the call). TOLERATE_API_ERRORS leaves oclgrind's API reports out of the failure regex (give
# the reason at the call); every in-kernel report still fails (they all carry an "Entity:" line).
# REQUIRE: a regex the output must match too (e.g. the plugin's log line naming the path that ran).
# SMALL_GEMM_TILES: the -cl-opt-disable run with 16 x 16 GEMM tiles (tests/CMakeLists.txt says
# why), for plugins whose GEMM takes the shared gemm_tn / gemm_tm settings. FULL_CATALOGUE: the
# full-size cases instead of --small; SETTINGS: a plugin settings file for every run; OCLGRIND_ARGS:
# more oclgrind options (e.g. --local-mem-size).
# Used by tests/vendor_intel, tests/vendor_mali and tests/vendor_adreno.
include_guard(GLOBAL)

function(clport_vendor_oclgrind_test plugin preset)
  cmake_parse_arguments(ARG "TOLERATE_API_ERRORS;OPTIMISED_ONLY;SMALL_GEMM_TILES;FULL_CATALOGUE"
                        "NAME;REQUIRE;FILTER;SETTINGS" "ENVIRONMENT;OCLGRIND_ARGS" ${ARGN})
  find_program(OCLGRIND_EXECUTABLE oclgrind)
  find_file(OCLGRIND_RUNTIME liboclgrind-rt.so PATHS /usr/lib/oclgrind /usr/lib/x86_64-linux-gnu
            /usr/local/lib/oclgrind NO_DEFAULT_PATH)
  set(name conformance.${plugin}.oclgrind)
  if(ARG_NAME)
    set(name ${ARG_NAME})
  endif()
  if(NOT OCLGRIND_EXECUTABLE OR NOT OCLGRIND_RUNTIME)
    message(STATUS "oclgrind not found: ${name} not registered")
    return()
  endif()
  if(ARG_TOLERATE_API_ERRORS)
    set(fail_regex "Entity: |Invalid (read|write)|[Uu]ninitiali[sz]ed|data race|Unaligned")
  else()
    set(fail_regex
        "Entity: |Invalid (read|write)|[Uu]ninitiali[sz]ed|data race|Oclgrind - |runtime error|Unaligned|FATAL")
  endif()
  set(all_checks ${OCLGRIND_EXECUTABLE} ${ARG_OCLGRIND_ARGS} --build-options -cl-opt-disable --uninitialized
      --check-api --data-races)
  set(optimised_checks ${OCLGRIND_EXECUTABLE} ${ARG_OCLGRIND_ARGS} --check-api --data-races)
  if(ARG_OPTIMISED_ONLY)
    set(runs "${name}=optimised_checks")
  else()
    set(runs "${name}=all_checks" "${name}.optimised=optimised_checks")
  endif()
  set(environment CLPORT_OPENCL_LIBRARY=$<TARGET_FILE:clport_fakecl_forward>
      FAKECL_TARGET=${OCLGRIND_RUNTIME} FAKECL_PRESET=${preset} CLPORT_CACHE_DIR=off ${ARG_ENVIRONMENT})
  set(filter mul_mat)
  if(ARG_FILTER)
    set(filter "${ARG_FILTER}")
  endif()
  set(conformance_args $<TARGET_FILE:clport_conformance> --plugin $<TARGET_FILE:clport_plugin_${plugin}>
      --filter "${filter}")
  if(NOT ARG_FULL_CATALOGUE)
    list(APPEND conformance_args --small)
  endif()
  if(ARG_SETTINGS)
    list(APPEND conformance_args --settings ${ARG_SETTINGS})
  endif()
  set(all_checks_settings "")
  if(ARG_SMALL_GEMM_TILES)
    set(all_checks_settings --settings ${CLPORT_OCLGRIND_SMALL_TILES})
  endif()
  foreach(run IN LISTS runs)
    string(REPLACE "=" ";" run "${run}")
    list(GET run 0 test)
    list(GET run 1 checks)
    set(command ${${checks}} ${conformance_args})
    if(checks STREQUAL "all_checks")
      list(APPEND command ${all_checks_settings})
    endif()
    add_test(NAME ${test}
             COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}"
                     "-DFAIL_REGEX=${fail_regex}" "-DREQUIRE_REGEX=${ARG_REQUIRE}"
                     -P ${PROJECT_SOURCE_DIR}/tests/conformance/run_checked.cmake)
    # COST: started early on a clean tree (tests/conformance/CMakeLists.txt says why).
    set_tests_properties(${test} PROPERTIES TIMEOUT 600 LABELS "conformance;no_sanitizer"
                         ENVIRONMENT "${environment}" COST 60)
  endforeach()
endfunction()
