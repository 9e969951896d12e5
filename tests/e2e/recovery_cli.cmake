# `clport run` on a device that starts failing at token 10 prints the text of a run that was on the
# CPU path from the start, the warning says what failed and where the device is recorded, the
# next start avoids the device (and `clport devices` says so), and a new driver version clears it.
#   cmake -DCLPORT=... -DFAKECL=<libclport_fakecl_forward.so> -DMODEL=... -DPROMPT=... -DWORK=<dir>
#         -P recovery_cli.cmake
# The device's kernels start failing at the first enqueue of the 10th token's forward step: a run
# of 9 tokens counts the enqueues before it (FAKECL_COUNT_FILE), the failing run fails from the
# next one on (FAKECL_FAIL=clEnqueueNDRangeKernel:N+:-5). Greedy, float activations on both paths.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(policy ${WORK}/fp32.yaml)
file(WRITE ${policy} "version: 1\nprecision: fp32\n")
set(tokens 24)
set(common_env CLPORT_CACHE_DIR=${WORK}/cache CLPORT_SELF_TEST=off)
set(unset --unset=CLPORT_CONFIG --unset=FAKECL_FAIL --unset=FAKECL_DRIVER_VERSION --unset=FAKECL_PRESET)

# run_clport(<out var prefix> <env...> -- <args...>): sets <prefix>_rc, _out, _err; a crash or a
# sanitizer report is a failure at once.
function(run_clport prefix)
  list(FIND ARGN "--" sep)
  list(SUBLIST ARGN 0 ${sep} env)
  math(EXPR first "${sep} + 1")
  list(SUBLIST ARGN ${first} -1 args)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${unset} ${common_env} ${env} ${CLPORT} ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc MATCHES "^[0-9]+$" OR err MATCHES "Segmentation fault|Aborted|AddressSanitizer|runtime error:|internal error")
    message(FATAL_ERROR "clport ${args} crashed (${rc}):\n${out}\n${err}")
  endif()
  set(${prefix}_rc ${rc} PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

function(expect_text what got)
  if(NOT got STREQUAL want_out)
    message(FATAL_ERROR "${what}: the text differs from the CPU path's\n--- CPU path:\n${want_out}\n--- got:\n${got}")
  endif()
endfunction()

# --wait-for-device: the device from the first token (a first start would begin on the CPU path).
set(run run -m ${MODEL} -p ${PROMPT} --temp 0 --wait-for-device)
run_clport(want -- ${run} -n ${tokens} --device cpu --cpu-fp32)
if(NOT want_rc EQUAL 0)
  message(FATAL_ERROR "the CPU path run failed (${want_rc}):\n${want_err}")
endif()

set(device_env CLPORT_OPENCL_LIBRARY=${FAKECL})
run_clport(count ${device_env} FAKECL_COUNT_FILE=${WORK}/counts.txt -- ${run} -n 9 --config ${policy})
if(NOT count_rc EQUAL 0 OR NOT count_err MATCHES "backend: OpenCL")
  message(FATAL_ERROR "the 9-token run did not run on the device (${count_rc}):\n${count_err}")
endif()
file(STRINGS ${WORK}/counts.txt enqueues REGEX "^clEnqueueNDRangeKernel ")
string(REGEX REPLACE "^clEnqueueNDRangeKernel " "" enqueues "${enqueues}")
math(EXPR first_failing "${enqueues} + 1")
message(STATUS "${enqueues} kernel enqueues before the 10th token's step")

run_clport(got ${device_env} FAKECL_FAIL=clEnqueueNDRangeKernel:${first_failing}+:-5 -- ${run} -n ${tokens} --config ${policy})
if(NOT got_rc EQUAL 0)
  message(FATAL_ERROR "the failing run exited ${got_rc}:\n${got_err}")
endif()
expect_text("the run failing at token 10" "${got_out}")
set(warning "error -5 in clEnqueueNDRangeKernel.* on '[^']+' \\(driver [^)]+\\); the run moved to the CPU path, the [0-9]+ tokens so far \\(prompt [0-9]+, generated 9\\) evaluated again there; '[^']+' is avoided from now on until its driver changes \\(recorded in ${WORK}/cache/avoid-[0-9a-f]+\\.json\\)")
if(NOT got_err MATCHES "${warning}")
  message(FATAL_ERROR "no warning saying what failed and which device is avoided:\n${got_err}")
endif()
file(GLOB records ${WORK}/cache/avoid-*.json)
list(LENGTH records n_records)
if(NOT n_records EQUAL 1)
  message(FATAL_ERROR "expected one failure record in ${WORK}/cache, found ${n_records}")
endif()

run_clport(next ${device_env} -- ${run} -n ${tokens} --config ${policy})
expect_text("the next start" "${next_out}")
if(NOT next_err MATCHES "failed during an earlier run.*running on the CPU" OR next_err MATCHES "backend: OpenCL")
  message(FATAL_ERROR "the next start did not avoid the device:\n${next_err}")
endif()

run_clport(devices ${device_env} -- devices)
if(NOT devices_out MATCHES "avoided: +failed during an earlier run \\([^)]*error -5 in clEnqueueNDRangeKernel")
  message(FATAL_ERROR "`clport devices` does not show the failure record:\n${devices_out}")
endif()

run_clport(updated ${device_env} FAKECL_DRIVER_VERSION=99.1-updated -- ${run} -n ${tokens} --config ${policy})
expect_text("a start with a new driver" "${updated_out}")
if(NOT updated_err MATCHES "backend: OpenCL" OR updated_err MATCHES "earlier run")
  message(FATAL_ERROR "a new driver version is still avoided:\n${updated_err}")
endif()
message(STATUS "recovered at token 10 with the CPU path's text:\n${got_out}\n${got_err}")
