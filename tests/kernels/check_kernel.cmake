# Script for one kernel_strict_cl12 test: concatenate the helpers + the kernel as a plugin builds
# it, then `clang -x cl -cl-std=CL1.2 -pedantic -Werror -fsyntax-only`.
get_filename_component(stem ${KERNEL} NAME_WE)
set(combined ${WORK_DIR}/${stem}${SUFFIX}.strict.cl)
file(READ ${KERNEL_DIR}/common.cl common)
file(READ ${KERNEL_DIR}/blocks.cl blocks)
file(READ ${KERNEL_DIR}/reduce.cl reduce)
file(READ ${KERNEL_DIR}/rope_math.cl rope_math)
file(READ ${KERNEL} body)
# A "_packed", "_x8" or "_serial" variant is compiled after its plain file (mul_mat_gemv_packed.cl
# reuses the reduction of mul_mat_gemv.cl, mul_mat_gemv_q8a_x8.cl the activation blocks of
# mul_mat_gemv_q8a.cl, attention_serial.cl the cache loaders of attention.cl, whose defaults
# also switch the serial kernels on), exactly as the plugin's program concatenates them.
if(stem MATCHES "^(.*)_(packed|x8|serial)$")
  file(READ ${KERNEL_DIR}/${CMAKE_MATCH_1}.cl plain)
  # The x8 kernels also need their layout's sizes (mul_mat_gemv_q8a_x8_layout.cl).
  if(EXISTS ${KERNEL_DIR}/${stem}_layout.cl)
    file(READ ${KERNEL_DIR}/${stem}_layout.cl layout)
    set(plain "${plain}\n${layout}")
  endif()
  set(body "${plain}\n${body}")
endif()
file(WRITE ${combined} "${common}\n${blocks}\n${reduce}\n${rope_math}\n${body}")
execute_process(
  COMMAND ${CLANG} -x cl -cl-std=CL1.2 -pedantic -Werror -fsyntax-only ${DEFINES}
          -Wno-unused-function -Xclang -finclude-default-header ${combined}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${KERNEL} is not strict OpenCL C 1.2:\n${out}${err}")
endif()
