# `clport quantize IN OUT TYPE` where OUT is IN under another name ("dir/./x.gguf", a hard link):
# refused with exit 24 before anything is written, the input byte for byte as it was.
#   cmake -DCLPORT=prog -DINPUT=model.gguf -DWORK=dir -P quantize_same_file.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY_FILE ${INPUT} ${WORK}/x.gguf)
file(CREATE_LINK ${WORK}/x.gguf ${WORK}/hard.gguf)
file(SHA256 ${WORK}/x.gguf before)
foreach(same "${WORK}/./x.gguf" "${WORK}/hard.gguf")
  execute_process(COMMAND ${CLPORT} quantize ${WORK}/x.gguf ${same} q8_0
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 24 OR NOT err MATCHES "the output '${same}' is the input file")
    message(FATAL_ERROR "quantize onto ${same}: exit ${rc}, expected 24 naming it:\n${out}\n${err}")
  endif()
  file(SHA256 ${WORK}/x.gguf after)
  if(NOT after STREQUAL before)
    message(FATAL_ERROR "quantize onto ${same} changed its input")
  endif()
endforeach()
file(GLOB left "${WORK}/*.tmp.*")
if(left)
  message(FATAL_ERROR "temporaries left behind: ${left}")
endif()
