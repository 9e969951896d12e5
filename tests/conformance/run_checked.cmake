# Runs a command (cmake -P, COMMAND as a ;-list) and fails when it exits non-zero or when its
# output matches FAIL_REGEX: oclgrind reports invalid accesses, uninitialised reads and data
# races on stderr without changing the program's exit code.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
message("${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "command exited with ${rc}")
endif()
if(FAIL_REGEX AND ("${out}${err}" MATCHES "${FAIL_REGEX}"))
  message(FATAL_ERROR "checker reported an error: '${CMAKE_MATCH_0}'")
endif()
