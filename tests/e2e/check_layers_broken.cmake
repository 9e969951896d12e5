# Copies the kernels, breaks SwiGLU (x1.5), and expects --check-layers to name layer 0 as the
# first divergent layer with a non-zero exit code.
file(REMOVE_RECURSE ${WORK})
file(COPY ${KERNELS}/ DESTINATION ${WORK})
file(READ ${WORK}/elementwise.cl src)
string(REPLACE "(1.0f + exp(-g)) * u" "(1.0f + exp(-g)) * u * 1.5f" broken "${src}")
if(broken STREQUAL src)
  message(FATAL_ERROR "could not find the SwiGLU expression to break in elementwise.cl")
endif()
file(WRITE ${WORK}/elementwise.cl "${broken}")
# The driver self-test would catch the broken kernel first and move SwiGLU to the CPU (its key
# covers CLPORT_KERNEL_DIR), leaving nothing for --check-layers to find: this test is about
# --check-layers, so the self-test is off.
execute_process(COMMAND ${CMAKE_COMMAND} -E env CLPORT_KERNEL_DIR=${WORK} CLPORT_SELF_TEST=off
                        ${CLPORT} run -m ${MODEL} -p "the cat" -n 2 --check-layers
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "first divergent layer: 0")
  message(FATAL_ERROR "broken SwiGLU was not named (exit ${rc}):\n${out}\n${err}")
endif()
