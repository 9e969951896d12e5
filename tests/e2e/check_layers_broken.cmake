# Copies the kernels, breaks SwiGLU (x1.5) in its own kernel and in the fused gate/up GEMVs (float,
# integer, and integer on the eight-row layout), and expects --check-layers to name layer 0 as the
# first divergent layer with a non-zero exit code, with fused patterns on (the default) and off.
file(REMOVE_RECURSE ${WORK})
file(COPY ${KERNELS}/ DESTINATION ${WORK})
foreach(pair "elementwise.cl|(1.0f + exp(-g)) * u" "mul_mat_gemv.cl|(1.0f + exp(-gate)) * up"
             "mul_mat_gemv_q8a.cl|(1.0f + exp(-gate)) * up" "mul_mat_gemv_q8a_x8.cl|(1.0f + exp(-gate)) * up")
  string(FIND "${pair}" "|" bar)
  string(SUBSTRING "${pair}" 0 ${bar} file)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${pair}" ${from} -1 expression)
  file(READ ${WORK}/${file} src)
  string(REPLACE "${expression}" "${expression} * 1.5f" broken "${src}")
  if(broken STREQUAL src)
    message(FATAL_ERROR "could not find the SwiGLU expression to break in ${file}")
  endif()
  file(WRITE ${WORK}/${file} "${broken}")
endforeach()
# The driver self-test would catch the broken kernel first and move SwiGLU to the CPU (its key
# covers CLPORT_KERNEL_DIR), leaving nothing for --check-layers to find: this test is about
# --check-layers, so the self-test is off.
foreach(fusion "" "--no-fusion")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env CLPORT_KERNEL_DIR=${WORK} CLPORT_SELF_TEST=off
                          ${CLPORT} run -m ${MODEL} -p "the cat" -n 2 --check-layers ${fusion}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "first divergent layer: 0")
    message(FATAL_ERROR "broken SwiGLU was not named (exit ${rc}, ${fusion}):\n${out}\n${err}")
  endif()
endforeach()
