# Script for one vendor kernel strictness test: the shared helpers the plugins prepend
# (common.cl, blocks.cl, reduce.cl, rope_math.cl) + the vendor kernel, checked by clang as strict OpenCL C 1.2
# (`-pedantic -Werror`, so no variadic macros). EXTRA (a ;-list) adds flags, e.g. a SPIR target
# with the vendor's extension macros so the guarded vendor-only code is compiled too.
get_filename_component(stem ${KERNEL} NAME_WE)
set(combined ${WORK_DIR}/${stem}.${TAG}.strict.cl)
file(READ ${KERNEL_DIR}/common.cl common)
file(READ ${KERNEL_DIR}/blocks.cl blocks)
file(READ ${KERNEL_DIR}/reduce.cl reduce)
file(READ ${KERNEL_DIR}/rope_math.cl rope_math)
file(READ ${KERNEL} body)
# A kernel file that the plugin builds behind others of its own names each on a line
# "// clport-requires: other.cl" (same folder), in the order they go in front; theirs are
# followed too, each file taken once.
get_filename_component(kernel_dir ${KERNEL} DIRECTORY)
set(required "")
function(collect_requires file)
  file(READ ${file} text)
  string(REGEX MATCHALL "// clport-requires: [a-z0-9_.]+" lines "${text}")
  foreach(line IN LISTS lines)
    string(REPLACE "// clport-requires: " "" name "${line}")
    list(FIND required ${name} seen)
    if(seen EQUAL -1)
      collect_requires(${kernel_dir}/${name})
      list(APPEND required ${name})
    endif()
  endforeach()
  set(required ${required} PARENT_SCOPE)
endfunction()
collect_requires(${KERNEL})
set(own "")
foreach(name IN LISTS required)
  file(READ ${kernel_dir}/${name} text)
  string(APPEND own "${text}\n")
endforeach()
file(WRITE ${combined} "${common}\n${blocks}\n${reduce}\n${rope_math}\n${own}\n${body}")
execute_process(COMMAND ${CLANG} -print-resource-dir OUTPUT_VARIABLE resource OUTPUT_STRIP_TRAILING_WHITESPACE)
# The explicit header (not -finclude-default-header's precompiled one) declares the extension
# built-ins (sub-groups, arm_dot) for whatever extension macros the target defines.
execute_process(
  COMMAND ${CLANG} -x cl -cl-std=CL1.2 -pedantic -Werror -fsyntax-only -Wno-unused-function
          -include ${resource}/include/opencl-c.h ${EXTRA} ${combined}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${KERNEL} (${TAG}) is not strict OpenCL C 1.2:\n${out}${err}")
endif()
if(FORBID_REGEX)
  string(REGEX MATCH "${FORBID_REGEX}" bad "${body}")
  if(bad)
    message(FATAL_ERROR "${KERNEL} contains '${bad}', which ${FORBID_WHY}")
  endif()
endif()
